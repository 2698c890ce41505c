// The board: read-only, draws the public frame (host.table.TableView) and nothing else.
"use strict";
const $ = (id) => document.getElementById(id);

function drawTimer(node, timer) {
  node.className = "";
  if (!timer) { node.classList.add("hidden"); return; }
  node.textContent = clock(timer.left);
  if (timer.ended) {
    node.classList.add("ended");
    node.append(el("span", "mark", " ■ " + say("time_up")));
  } else if (timer.warning) {
    node.classList.add("warning");
    node.append(el("span", "mark", " ⚠"));
  }
}

function drawBoard(table) {
  document.body.classList.toggle("night", !!table.night);
  $("board").classList.toggle("hidden", !!table.night);
  $("nightview").classList.toggle("hidden", !table.night);
  $("paused").classList.toggle("hidden", !table.paused);
  $("paused").textContent = say("paused");
  if (table.night) {
    $("nightname").textContent = whenText(table).toUpperCase();
    $("nightrole").textContent = table.phase_name;
    return;
  }
  $("phase").textContent = table.started ? whenText(table) + " · " + table.phase_name : table.phase_name;
  const speech = table.speaker === null || table.speaker === undefined ? "" :
    say(table.lost_speech ? "lost_speech" : "speaking", {seat: table.speaker});
  $("speaker").textContent = speech;
  drawTimer($("timer"), table.timer);
  const seats = $("seats");
  seats.replaceChildren();
  for (const seat of table.seats || []) {
    const tile = el("div", "seat");
    if (seat.left) tile.classList.add("left");
    if (seat.seat === table.speaker) tile.classList.add("speaking");
    tile.append(el("div", "n", (seat.left ? "✗" : "") + seat.seat));
    if (seat.name) tile.append(el("div", "name", seat.name));  // text, never markup
    tile.append(el("div", "f", "!".repeat(seat.fouls)));
    if (seat.card) {
      tile.append(el("div", "card", say("card_" + seat.card)));
      if (seat.card === "mafia" || seat.card === "don") tile.classList.add("black");
    }
    seats.append(tile);
  }
  const lists = $("lists");
  lists.replaceChildren();
  if (table.nominations && table.nominations.length) {
    const row = el("div", "", say("nominations") + ": ");
    for (const [by, whom] of table.nominations) row.append(el("span", "chip", by + " → " + whom.join(", ")));
    lists.append(row);
  }
  if (table.candidates && table.candidates.length) {
    const row = el("div", "", say(table.counted ? "vote_result" : "candidates") + ": ");
    for (const [seat, count] of table.candidates) {
      const chip = el("span", "chip", count === null ? String(seat) : seat + " — " + count);
      if (seat === table.voting_on) chip.classList.add("now");
      row.append(chip);
    }
    lists.append(row);
  }
  if (table.all_leave_votes !== null && table.all_leave_votes !== undefined) {
    lists.append(el("div", "", say("all_leave_votes", {votes: table.all_leave_votes})));
  }
  const banner = $("banner");
  banner.classList.toggle("hidden", !table.winner);
  if (table.winner) banner.textContent = say("protocol_winner_" + table.winner);
}

live("/ws/board", (frame) => { if (frame.type === "table") drawBoard(frame.table); }, null,
  (up) => {
    $("status").textContent = up ? "" : say("web_connecting");
    if (!up) $("timer").classList.add("hidden");  // a stopped clock would mislead the room
  });
