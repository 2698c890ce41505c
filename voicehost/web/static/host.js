// The host's remote: everything the keyboard does, for thumbs. Inputs carry an id and wait in
// sessionStorage until the host has answered them, so a locked phone or a dropped Wi-Fi neither
// loses an input nor applies one twice.
"use strict";
const $ = (id) => document.getElementById(id);
let ask = null;
let table = null;
let mode = null;          // "foul" or "remove": the next seat tapped gets it
let chosen = [];          // seats chosen for a question that takes several
let loss = null;          // the seat whose team loses, waiting for the host's confirmation
let privateTimer = null;
let evening = null;       // "start" or "end": waiting for the host's confirmation
const PENDING = "vh_pending";

function pending() { return JSON.parse(sessionStorage.getItem(PENDING) || "[]"); }
function keep(list) { sessionStorage.setItem(PENDING, JSON.stringify(list)); }

const link = live("/ws/host", onFrame, () => { for (const input of pending()) link.send(input); },
  (up) => {
    if (up) return;
    $("rhead").textContent = say("web_connecting");
    $("rclock").textContent = "";  // a clock that stopped moving would mislead the host
  },
  () => location.reload());  // no longer paired: the pairing page says so and shows a number

function send(fields) {
  const input = Object.assign({type: "input", id: newId(), token: ask ? ask.token : ""}, fields);
  keep(pending().concat([input]));
  link.send(input);
  mode = null;
  chosen = [];
  loss = null;
  evening = null;
  draw();
}

const MODES = {foul: "web_foul_for", remove: "web_remove_for", team_loss: "web_team_loss_for",
  name: "web_name_for"};

function onFrame(frame) {
  if (frame.type === "remote") {
    if (table && frame.table.phase !== table.phase) $("feedback").textContent = "";
    ask = frame.ask; table = frame.table; draw();
    document.body.dataset.seq = frame.seq;
  }
  else if (frame.type === "ack") {
    keep(pending().filter((input) => input.id !== frame.id));
    const box = $("feedback");
    box.textContent = frame.message || "";
    box.classList.toggle("bad", !frame.ok);
    if (frame.evening) {  // the evening's table goes in its own box, kept until the next one
      box.textContent = "";
      $("eveningbox").textContent = frame.message || "";
      $("eveningbox").classList.toggle("hidden", !frame.message);
    }
  } else if (frame.type === "private") { showPrivate(frame.text, frame.seconds); }
  else if (frame.type === "private_clear") { hidePrivate(); }
}

// The night step has ended: the answer goes now, before the next role is woken.
function hidePrivate() {
  clearTimeout(privateTimer);
  $("private").textContent = "";
  $("private").classList.add("hidden");
}

function showPrivate(text, seconds) {
  const box = $("private");
  box.textContent = text;
  box.classList.remove("hidden");
  clearTimeout(privateTimer);
  privateTimer = setTimeout(() => { box.textContent = ""; box.classList.add("hidden"); }, seconds * 1000);
}

function button(text, onTap, isChosen) {
  const node = el("button", isChosen ? "chosen" : "", text);
  node.addEventListener("click", onTap);
  return node;
}

function draw() {
  if (!ask || !table) return;
  if (!table.started) { $("rhead").textContent = table.phase_name; return; }
  const night = !!ask.night;
  if (!ask.names && mode === "name") mode = null;  // night fell: nothing new on a dark phone
  document.body.classList.toggle("night", night);
  let head = table.started ? whenText(table) + " · " + table.phase_name : table.phase_name;
  if (!night && table.speaker !== null && table.speaker !== undefined) {
    head += " · " + say(table.lost_speech ? "lost_speech" : "speaking", {seat: table.speaker});
  }
  if (table.paused) head += " · " + say("paused");
  $("rhead").textContent = head;
  const clockNode = $("rclock");
  clockNode.className = "";
  clockNode.textContent = "";
  if (!night && table.timer) {
    clockNode.textContent = clock(table.timer.left) +
      (table.timer.ended ? " ■ " + say("time_up") : table.timer.warning ? " ⚠" : "");
    if (table.timer.ended) clockNode.classList.add("ended");
    else if (table.timer.warning) clockNode.classList.add("warning");
  }
  $("prompt").textContent = ask.text;
  $("mode").textContent = mode ? say(MODES[mode]) : "";
  const grid = $("grid");
  grid.replaceChildren();
  if (mode === "team_loss") {
    for (const seat of ask.living) {
      grid.append(button(String(seat), () => { loss = seat; mode = null; draw(); }));
    }
  } else if (mode === "name") {
    for (const seat of ask.everyone) {
      grid.append(button(String(seat), () => send({action: "name", number: seat, text: $("nametext").value})));
    }
  } else if (mode) {
    for (const seat of ask.living) {
      grid.append(button(String(seat), () => send({action: mode, number: seat})));
    }
  } else if (ask.kind === "seats") {
    for (const seat of ask.seats) {
      grid.append(button(String(seat), () => tapSeat(seat), chosen.includes(seat)));
    }
  } else if (ask.kind === "count") {
    for (const count of ask.counts) {
      grid.append(button(String(count), () => send({action: "count", number: count})));
    }
  }
  const many = ask.kind === "seats" && ask.seats_max > 1 && !mode;
  $("send").classList.toggle("hidden", !many);
  $("send").textContent = say("web_send") + (many ? " (" + chosen.length + "/" + ask.seats_max + ")" : "");
  // The buttons that work now, with the words the hint names them by (face.offered).
  const buttons = ask.buttons || {};
  for (const id of ["end", "miss", "undo", "pause"]) {
    const shown = buttons[id] !== undefined && !(id === "end" && mode !== null);
    $(id).classList.toggle("hidden", !shown);
    if (shown) $(id).textContent = buttons[id];
  }
  drawTally();
  $("remove").classList.toggle("hidden", !ask.remove);
  $("loss").classList.toggle("hidden", !ask.remove);
  $("lossconfirm").classList.toggle("hidden", loss === null);
  $("lossconfirm").textContent = loss === null ? "" : say("web_team_loss_confirm", {seat: loss});
  // An ended game takes no more inputs (the protocol is written when the host leaves it).
  $("foul").classList.toggle("hidden", !!ask.over);
  $("protocol").classList.toggle("hidden", night || !!ask.over);
  $("link").classList.toggle("hidden", !(ask.deal && ask.deal.on));
  $("name").classList.toggle("hidden", !ask.names);
  $("nametext").classList.toggle("hidden", mode !== "name");
  for (const id of ["evstart", "evstatus", "evend"]) $(id).classList.toggle("hidden", !ask.evening);
  if (!ask.evening) { evening = null; $("eveningbox").classList.add("hidden"); }
  $("evconfirm").classList.toggle("hidden", evening === null);
  $("evconfirm").textContent = evening === null ? "" : say("web_evening_" + evening + "_confirm");
}

// A counted vote on the remote as on the board: each candidate's count, and what the table will
// hear when the count is confirmed.
function drawTally() {
  const box = $("tally");
  box.replaceChildren();
  if (table.night || !table.counted || !table.candidates || !table.candidates.length) return;
  const counts = table.candidates.map(([seat, count]) => seat + " — " + (count === null ? "?" : count));
  box.append(el("div", "", say("vote_result") + ": " + counts.join(", ")));
  if (table.all_leave_votes !== null && table.all_leave_votes !== undefined) {
    box.append(el("div", "", say("all_leave_votes", {votes: table.all_leave_votes})));
  }
  if (ask.result) box.append(el("div", "result", ask.result));
}

function tapSeat(seat) {
  if (ask.seats_max <= 1) { send({action: "seats", seats: [seat]}); return; }
  chosen = chosen.includes(seat) ? chosen.filter((s) => s !== seat) : chosen.concat([seat]);
  if (chosen.length === ask.seats_max) { send({action: "seats", seats: chosen}); return; }
  draw();
}

$("send").addEventListener("click", () => { if (chosen.length) send({action: "seats", seats: chosen}); });
$("end").addEventListener("click", () => send({action: "end_speech"}));
$("miss").addEventListener("click", () => send({action: "miss"}));
$("undo").addEventListener("click", () => send({action: "undo"}));
$("pause").addEventListener("click", () => send({action: "pause"}));
$("protocol").addEventListener("click", () => send({action: "protocol"}));
$("foul").addEventListener("click", () => { mode = mode === "foul" ? null : "foul"; draw(); });
$("remove").addEventListener("click", () => { mode = mode === "remove" ? null : "remove"; draw(); });
$("loss").addEventListener("click", () => {
  mode = mode === "team_loss" ? null : "team_loss"; loss = null; draw();
});
$("name").addEventListener("click", () => {
  mode = mode === "name" ? null : "name"; draw();
  if (mode === "name") $("nametext").focus();
});
$("evstart").addEventListener("click", () => { evening = evening === "start" ? null : "start"; draw(); });
$("evend").addEventListener("click", () => { evening = evening === "end" ? null : "end"; draw(); });
$("evstatus").addEventListener("click", () => send({action: "evening", what: "status"}));
$("evconfirm").addEventListener("click", () => {
  if (evening !== null) send({action: "evening", what: evening});
});
$("lossconfirm").addEventListener("click", () => {
  if (loss !== null) send({action: "team_loss", number: loss, confirmed: true});
});
// The role has read the answer: a tap clears it at once (else it goes after a few seconds).
$("private").addEventListener("click", () => {
  hidePrivate();
});
