// The board and the stream overlay: read-only, they draw the public frame (host.table.TableView)
// and nothing else. Everything is sized to the window: no seat, name or mark is ever scrolled to.
"use strict";
const $ = (id) => document.getElementById(id);

// A tile's width to its height that the seat grid aims for (a number, a name, marks, a card).
const TILE_ASPECT = 1.1;
// The smallest a name or a card is shrunk to before it is cut with «…» (its title keeps it all).
const SMALLEST_TEXT = 0.5;
// The size at which a long name rather takes two lines than shrinks further.
const TWO_LINES = 0.75;
// The smallest the panel's text is shrunk to so that everything in it shows.
const SMALLEST_PANEL = 0.3;

let shown = null;  // the table on the screen, drawn again when the window changes size
let drawnSeats = "";  // the seats the tiles show (their frame's JSON)
let fittedBox = "";  // the size of the seats' space when the tiles were last fitted to it

function drawTimer(node, timer) {
  node.className = "";
  node.replaceChildren();
  if (!timer) { node.classList.add("hidden"); return; }
  node.append(el("span", "clock", clock(timer.left)));
  if (timer.ended) {
    node.classList.add("ended");
    node.append(el("span", "mark", "■ " + say("time_up")));
  } else if (timer.warning) {
    node.classList.add("warning");
    node.append(el("span", "mark", "⚠"));
  }
}

function seatTile(seat, table) {
  const tile = el("div", "seat");
  if (seat.left) tile.classList.add("left");
  if (seat.seat === table.speaker) tile.classList.add("speaking");
  tile.append(el("div", "n", (seat.left ? "✗" : "") + seat.seat));
  if (seat.name) {
    const name = el("div", "name fit", seat.name);  // text, never markup
    name.title = seat.name;
    tile.append(name);
  }
  tile.append(el("div", "f", "!".repeat(seat.fouls)));
  if (seat.card) {
    const card = el("div", "card fit", say("card_" + seat.card));
    card.title = card.textContent;
    tile.append(card);
    tile.classList.add("team-" + say("team_" + seat.card));
  }
  return tile;
}

function drawLists(table) {
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
}

function drawBoard(table) {
  shown = table;
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
  $("speaker").classList.toggle("hidden", !speech);
  drawTimer($("timer"), table.timer);
  const seatsKey = JSON.stringify([table.seats, table.speaker]);
  const rebuilt = seatsKey !== drawnSeats;
  if (rebuilt) {  // the timer changes every second; the tiles are drawn again only when they change
    $("seats").replaceChildren(...(table.seats || []).map((seat) => seatTile(seat, table)));
    drawnSeats = seatsKey;
  }
  drawLists(table);
  const banner = $("banner");
  const ending = table.winner ? "protocol_winner_" + table.winner : table.over ? "protocol_winner_draw" : "";
  banner.classList.toggle("hidden", !ending);
  banner.textContent = ending ? say(ending) : "";
  fitAll(rebuilt);
}

// The grid's columns and rows that give the biggest tiles in the space the seats have.
function arrange(seats) {
  const count = seats.children.length;
  if (!count) return;
  const style = getComputedStyle(seats);
  const gap = parseFloat(style.columnGap) || 0;
  const width = seats.clientWidth, height = seats.clientHeight;
  let best = null;
  for (let cols = 1; cols <= count; cols++) {
    const rows = Math.ceil(count / cols);
    const tileWidth = (width - gap * (cols - 1)) / cols;
    const tileHeight = (height - gap * (rows - 1)) / rows;
    const size = Math.min(tileWidth / TILE_ASPECT, tileHeight);
    if (best === null || size > best.size + 0.5) best = {cols, rows, size};
  }
  seats.style.setProperty("--cols", best.cols);
  seats.style.setProperty("--rows", best.rows);
}

// A line that does not fit is shrunk (never broken inside a word); a name of several words that
// would shrink below TWO_LINES goes on two lines, broken at a space, if its tile has the room;
// below SMALLEST_TEXT it is cut with «…», and its title holds the whole text. Every line is
// measured at once (two layouts for the whole table, not two per seat: a Pi redraws each second).
function fitLines(nodes) {
  const px = (size) => size.toFixed(2) + "px";
  for (const node of nodes) { node.style.fontSize = ""; node.classList.remove("two"); }
  const wide = [];
  for (const node of nodes) {
    if (node.scrollWidth <= node.clientWidth) continue;
    const size = parseFloat(getComputedStyle(node).fontSize);
    wide.push({node, size, scale: node.clientWidth / node.scrollWidth * 0.98});
  }
  const tried = wide.filter((line) => line.scale < TWO_LINES && /\s/.test(line.node.textContent.trim()));
  for (const line of tried) {
    line.node.classList.add("two");
    line.node.style.fontSize = px(line.size * TWO_LINES);
  }
  const failed = tried.filter(({node}) => {
    const tile = node.parentElement;
    return node.scrollWidth > node.clientWidth || node.scrollHeight > node.clientHeight + 1 ||
      tile.scrollHeight > tile.clientHeight;
  });
  for (const line of failed) line.node.classList.remove("two");
  for (const line of wide) {
    if (!line.node.classList.contains("two")) line.node.style.fontSize = px(line.size * Math.max(SMALLEST_TEXT, line.scale));
  }
}

// The panel's text (phase, speaker, timer, lists) shrinks together until all of it shows.
function fitPanel(panel) {
  let scale = 1;
  panel.style.setProperty("--k", scale);
  for (let round = 0; round < 8; round++) {
    const tall = panel.scrollHeight / Math.max(1, panel.clientHeight);
    const wide = panel.scrollWidth / Math.max(1, panel.clientWidth);
    const over = Math.max(tall, wide);
    if (over <= 1.005 || scale <= SMALLEST_PANEL) return;
    scale = Math.max(SMALLEST_PANEL, scale / over * 0.97);
    panel.style.setProperty("--k", scale.toFixed(3));
  }
}

function fitAll(rebuilt) {
  fitPanel($("panel"));
  const seats = $("seats");
  const box = seats.clientWidth + "x" + seats.clientHeight;
  if (!rebuilt && box === fittedBox) return;  // the same tiles in the same space: as they were
  fittedBox = box;
  arrange(seats);
  fitLines([...seats.querySelectorAll(".fit")]);
}

window.addEventListener("resize", () => { if (shown) drawBoard(shown); });

live("/ws/board", (frame) => { if (frame.type === "table") drawBoard(frame.table); }, null,
  (up) => {
    $("status").textContent = up ? "" : say("web_connecting");
    $("status").classList.toggle("hidden", up);
    if (!up) $("timer").classList.add("hidden");  // a stopped clock would mislead the room
    if (shown && !shown.night) fitAll(false);
  });
