// Pairing: the phone shows a number, the host types it (keyboard or keypad), and the page opens
// the remote by itself. Nothing here is a secret: the number pairs this phone only.
"use strict";
const box = document.getElementById("pairing");
const next = box.dataset.next === "/deal" ? "/deal" : "/host";
// Taps made under an ended pairing (an earlier game, remotes dropped) never reach another game.
sessionStorage.removeItem("vh_pending");
let checking = null;

async function post(path) {
  const response = await fetch(path, {method: "POST", credentials: "same-origin"});
  return response.json();
}

async function ask(expired) {
  try {
    const answer = await post("/pair/request");
    if (!answer.number) {  // too many phones are waiting: ask again in a minute
      document.getElementById("message").textContent = say("web_pair_busy");
      setTimeout(() => ask(expired), 60000);
      return;
    }
    document.getElementById("number").textContent = say("web_pair_number", {number: answer.number});
    document.getElementById("waiting").textContent = say("web_pair_waiting", {number: answer.number});
    if (expired) document.getElementById("message").textContent = say("web_pair_expired");
  } catch (error) {
    document.getElementById("number").textContent = say("web_connecting");
    setTimeout(() => ask(expired), 2000);
    return;
  }
  clearInterval(checking);
  checking = setInterval(check, 1500);
}

async function check() {
  let answer;
  try { answer = await post("/pair/check"); } catch (error) { return; }
  if (answer.state === "paired") { clearInterval(checking); location.replace(next); }
  else if (answer.state === "expired") { clearInterval(checking); ask(true); }
}

ask(false);
