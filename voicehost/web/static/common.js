// voicehost web face: what every page shares (labels, the live connection).
"use strict";
const LABELS = JSON.parse(document.getElementById("labels").textContent);

function say(key, params) {
  let text = LABELS[key] || "";
  for (const [name, value] of Object.entries(params || {})) {
    text = text.split("{" + name + "}").join(String(value));
  }
  return text;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function clock(seconds) {
  const minutes = Math.floor(seconds / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return minutes + ":" + rest;
}

function whenText(table) {
  return table.night ? say("night", {night: table.night_number}) : say("day", {day: table.day});
}

// A live connection that comes back by itself (a locked phone, a dropped Wi-Fi, a host that
// was restarted), trying again after 0.5 s, 1 s, 2 s... up to every 5 s. A page that needs
// pairing passes onRefused: when the server is up but no longer knows this phone (a resumed
// game with a new code), it is told once instead of trying for ever.
function live(path, onFrame, onOpen, onState, onRefused) {
  let socket = null;
  let delay = 500;
  let retry = null;
  let refused = false;
  function again() {
    clearTimeout(retry);
    retry = setTimeout(connect, delay);
    delay = Math.min(delay * 2, 5000);
  }
  function connect() {
    clearTimeout(retry);
    if (refused || (socket && socket.readyState <= 1)) return;  // one socket at a time
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + path);
    socket.onopen = () => { delay = 500; onState(true); if (onOpen) onOpen(); };
    socket.onmessage = (event) => onFrame(JSON.parse(event.data));
    socket.onclose = () => {
      onState(false);
      if (!onRefused) { again(); return; }
      // Up but refusing this phone (403), or down (no answer): ask the page itself.
      fetch(path, {cache: "no-store", credentials: "same-origin"}).then((answer) => {
        if (answer.status === 403) { refused = true; onRefused(); } else again();
      }, again);
    };
  }
  connect();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { delay = 500; connect(); }
  });
  return {
    send: (data) => {
      if (socket && socket.readyState === 1) { socket.send(JSON.stringify(data)); return true; }
      return false;
    },
  };
}

// One id per input, random, kept until the host has answered it (sent again after a reconnect).
function newId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
