// Dealing by the device: the phone goes round the table. A card is shown once, to the player who
// tapped for it, and hidden before the phone moves on; the page never holds a card afterwards.
"use strict";
const $ = (id) => document.getElementById(id);
let ask = null;
let showing = null;   // the seat whose card is on the screen now
let waitingFor = null;

const link = live("/ws/host", onFrame, null,
  (up) => { if (!up) $("dealtext").textContent = say("web_connecting"); },
  () => location.reload());  // no longer paired: the pairing page says so and shows a number

function onFrame(frame) {
  if (frame.type === "remote") { ask = frame.ask; draw(); }
  else if (frame.type === "ack" && frame.id === waitingFor) {
    waitingFor = null;
    if (frame.card) { showing = frame.card; }
    else if (!frame.ok) { $("dealtext").textContent = frame.message; }
    draw();
  }
}

function send(fields) {
  waitingFor = newId();
  link.send(Object.assign({type: "input", id: waitingFor}, fields));
}

function draw() {
  if (!ask) return;
  const deal = ask.deal || {on: false};
  const text = $("dealtext");
  const card = $("card");
  const action = $("dealbutton");
  card.classList.toggle("hidden", showing === null);
  card.textContent = showing || "";
  action.classList.remove("hidden");
  if (!deal.on) { text.textContent = say("web_deal_off"); action.classList.add("hidden"); return; }
  if (showing !== null) {
    text.textContent = "";
    action.textContent = say("web_deal_hide");
    action.onclick = () => { showing = null; draw(); };
    return;
  }
  if (!deal.dealt) {
    if (!deal.open) { text.textContent = say("web_deal_late"); action.classList.add("hidden"); return; }
    text.textContent = "";
    action.textContent = say("web_deal_start");
    action.onclick = () => send({action: "deal"});
    return;
  }
  if (deal.next === null) {
    text.textContent = say("web_deal_done");
    action.classList.add("hidden");
    return;
  }
  text.textContent = say("web_deal_pass", {seat: deal.next});
  action.textContent = say("web_deal_show", {seat: deal.next});
  const seat = deal.next;
  action.onclick = () => send({action: "deal_seen", seat: seat});
}
