// A submission's page: follows its status, build log and check report once a second until it is
// entered or refused. Everything from the server goes in as text (textContent), never as HTML.
(function () {
  "use strict";
  var root = document.getElementById("submission");
  if (!root || root.dataset.finished === "true") { return; }
  var status = document.getElementById("status");
  var log = document.getElementById("log");
  var report = document.getElementById("report");
  var error = document.getElementById("error");
  var entered = document.getElementById("entered-link");
  var botLink = document.getElementById("bot-link");
  var label = document.getElementById("bot-label");

  function show(element, text) {
    if (element.textContent === text) { return; }
    var atBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
    element.textContent = text;
    if (atBottom) { element.scrollTop = element.scrollHeight; }
  }

  function update(s) {
    status.textContent = s.status;
    status.className = "status status-" + s.status;
    status.dataset.status = s.status;
    label.textContent = s.bot_name + " " + s.bot_version;
    show(log, s.log);
    show(report, s.report);
    if (s.error) { error.textContent = s.error; error.hidden = false; }
    if (s.bot_url) { botLink.href = s.bot_url; entered.hidden = false; }
    var hint = document.getElementById("standings-hint");
    if (hint && s.status === "entered") { hint.hidden = false; }
    root.dataset.finished = s.finished ? "true" : "false";
  }

  function poll() {
    fetch(root.dataset.api, { headers: { accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.ok ? reply.json() : null; })
      .then(function (s) {
        if (s) { update(s); }
        if (!s || !s.finished) { window.setTimeout(poll, 1000); }
      })
      .catch(function () { window.setTimeout(poll, 1000); });  // the server restarts: keep asking
  }

  window.setTimeout(poll, 1000);
}());
