"""Dealing by the phone comes first: nobody is woken before every player has seen a card, the
host's screen shows where to deal (the address and its QR code), and a resumed game agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.webkit import WebTable, settings_for, web_table
from voicehost.host.replay import replay_journal
from voicehost.web.face import WebFace

ASLEEP = "Город засыпает"


def deal_all(table: WebTable) -> None:
    """The phone deals and goes round the table, each player looking at their card."""
    face: WebFace = table.web.face

    def on_loop() -> None:
        face.remote_input(1, {"id": "deal", "action": "deal"})
        for seat in range(1, table.host.settings.game.players + 1):
            face.remote_input(1, {"id": f"seen{seat}", "action": "deal_seen", "seat": seat})

    table.run_on_loop(on_loop)


@pytest.mark.parametrize("preset", ["club", "city"])
def test_nobody_is_woken_before_the_cards_are_dealt(preset: str, tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    with web_table(settings_for(preset, deal="device"), journal=journal) as table:
        table.run_on_loop(lambda: None)
        before = list(table.host.transcript)
        assert not [line for line in before if ASLEEP in line], before
        assert any("Раздача карт" in line for line in before)
        state = table.host.state
        assert state is not None and all(p.role is None for p in state.players.values())
        deal_all(table)
        after = table.host.transcript[len(before) :]
        assert after and ASLEEP in after[0], after
        table.wait()  # the black team's window: registered by the deal, nothing typed
        state = table.host.state
        assert state is not None and any(p.role is not None for p in state.players.values())
        live = table.host.state
    resumed = replay_journal(settings_for(preset), journal)  # config without the device deal
    assert resumed.state.phase == live.phase
    assert resumed.state.players == live.players


def test_the_deal_address_and_its_qr_code_are_on_the_hosts_screen(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from voicehost.cli.session import start_web_face
    from voicehost.console.terminal import LogScreen
    from voicehost.testing.table import text_table
    from voicehost.web.face import WebPrivate

    screen = LogScreen()
    settings = settings_for("club", port=0, listen="127.0.0.1", deal="device")
    host = text_table("ru", settings=settings, screen=screen)
    host.start()
    running = start_web_face(host, WebPrivate(host.private), interactive=True)
    try:
        url = f"http://127.0.0.1:{running.server.port}/deal"
        printed = capsys.readouterr().out
        assert f"Раздача карт с телефона: {url}" in printed
        shown = screen.lines
        at = next(n for n, line in enumerate(shown) if url in line)
        qr = shown[at + 1 : at + 12]
        assert len(qr) > 8 and all("█" in row or "▀" in row or "▄" in row for row in qr)
    finally:
        running.stop()
