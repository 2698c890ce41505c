"""A flood of pairing requests from other addresses never takes the host's phone's number."""

from __future__ import annotations

import asyncio

from tests.web.phone import Phone
from tests.web.test_pairing import typed
from tests.web.webkit import settings_for, web_table
from voicehost.web.pairing import REQUESTS_IN_ALL, WRONG_CODES_IN_ALL, Pairing


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


def test_codes_guessed_from_many_addresses_at_once_never_find_the_clubs_code() -> None:
    now = [0.0]
    pairing = Pairing(club_code="7314", clock=lambda: now[0])
    found = []
    for guess in range(10_000):  # one try from each address: no address is ever slowed
        address = f"10.{guess // 250}.{guess % 250}.1"
        if pairing.codes_closed():
            continue
        token = pairing.try_code(address, f"{guess:04d}")
        if token is not None:
            found.append(guess)
    assert not found
    _, number = pairing.request("10.99.0.1", "")
    assert pairing.approve(int(number))  # the host's approval pairs all the same
    now[0] += 601.0
    assert not pairing.codes_closed() and pairing.try_code("10.99.0.2", "7314") is not None


def test_a_phone_told_that_codes_are_closed_is_shown_the_number_way() -> None:
    with web_table(settings_for("club", pairing_code="Klub2026")) as table:

        async def main() -> None:
            for n in range(WRONG_CODES_IN_ALL):
                async with Phone(table.base, f"127.0.1.{n + 1}") as guesser:
                    assert await guesser.code(f"guess{n}") == 403
            async with Phone(table.base, "127.0.2.1") as host_phone:
                status, page = await host_phone.post("/pair", {"code": "Klub2026", "next": "/host"})
                assert status == 429 and "коды сейчас не принимаются" in page
                assert await host_phone.remote() == 403
                number = await host_phone.ask_number()
                lines = await asyncio.to_thread(typed, table, f"пульт {number}")
                assert any("Пультов подключено: 1." in line for line in lines)
                assert await host_phone.check() == "paired" and await host_phone.remote() == 101

        asyncio.run(main())
