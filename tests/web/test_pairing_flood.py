"""A flood of pairing requests from other addresses never takes the host's phone's number."""

from __future__ import annotations

from voicehost.web.pairing import REQUESTS_IN_ALL, Pairing


def test_a_flood_from_many_addresses_never_takes_the_number_the_hosts_phone_shows() -> None:
    pairing = Pairing()
    host_ticket, number = pairing.request("192.168.1.20", "")
    stolen = []
    for attempt in range(20_000):  # 60 addresses, round and round: the host's number sought
        ticket, shown = pairing.request(f"192.168.1.{100 + attempt % 60}", "")
        if shown == number:
            stolen.append(ticket)
            break
    assert pairing.check(host_ticket) == ""  # the host's phone still waits with its number
    assert not stolen
    assert pairing.approve(int(number))
    assert pairing.check(host_ticket)  # the host's own phone, and nobody else, is the remote
    assert pairing.count() == 1


def test_when_every_place_is_held_a_new_phone_is_told_to_wait_not_given_anothers() -> None:
    pairing = Pairing()
    tickets = [pairing.request(f"10.0.0.{i}", "")[0] for i in range(REQUESTS_IN_ALL)]
    ticket, shown = pairing.request("10.0.1.1", "")
    assert (ticket, shown) == ("", "")  # refused: nobody's request was pushed out
    assert all(pairing.check(one) == "" for one in tickets)
    again, kept = pairing.request("10.0.0.1", tickets[1])
    assert again == tickets[1] and kept  # a waiting phone asking again keeps its number
