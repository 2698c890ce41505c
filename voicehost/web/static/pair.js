// The QR code carries the pairing code after "#", which never reaches the server in a URL:
// it is filled in and posted like a typed one.
"use strict";
const match = /code=([A-Za-z0-9]+)/.exec(location.hash);
if (match && !document.getElementById("message").textContent.trim()) {
  history.replaceState(null, "", location.pathname);
  document.getElementById("code").value = match[1];
  document.getElementById("pair").submit();
}
