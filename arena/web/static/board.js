// A leaderboard page, without a framework: highlights the signed-in account's own rows (their bot
// ids are the page's data-mine), filters the rows by bot or author as one types (each row's
// data-search), and follows an admin's running league run (#run-state) through the API's run
// state, once a second, until it ends; then reloads once, for the new standings.
(function () {
  "use strict";
  var page = document.getElementById("board-page");
  var table = document.getElementById("leaderboard");
  if (page && table) {
    var mine = {};
    (page.dataset.mine || "").split(" ").forEach(function (id) { if (id) { mine[id] = true; } });
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      if (mine[row.dataset.botId]) { row.classList.add("mine"); row.setAttribute("title", "yours"); }
    });
    var filter = document.getElementById("board-filter");
    var count = document.getElementById("board-count");
    var apply = function () {
      var words = filter.value.toLocaleLowerCase().trim().split(/\s+/).filter(Boolean);
      var rows = table.tBodies[0].rows, shown = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var text = row.dataset.search || "";
        var hit = words.every(function (w) { return text.indexOf(w) !== -1; });
        row.hidden = !hit;
        if (hit) { shown += 1; }
      });
      count.textContent = words.length ? shown + " of " + rows.length + " shown" : "";
    };
    if (filter) { filter.addEventListener("input", apply); apply(); }
  }

  var run = document.getElementById("run-state");
  if (!run || run.dataset.status !== "running") { return; }
  var games = document.getElementById("run-games");
  var progress = document.getElementById("run-progress");
  function poll() {
    fetch(run.dataset.api, { headers: { accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.ok ? reply.json() : null; })
      .then(function (s) {
        if (!s) { window.setTimeout(poll, 2000); return; }
        var total = s.games_total === null ? "(counting…)" : String(s.games_total);
        games.textContent = s.games_played + " of " + total + " game(s) played";
        if (s.games_total) { progress.max = s.games_total; progress.value = s.games_played; }
        document.getElementById("run-failures").textContent = String(s.seat_failures);
        document.getElementById("run-status").textContent = s.status;
        run.dataset.status = s.status;
        if (s.error) {
          var error = document.getElementById("run-error");
          error.textContent = ": " + s.error;
          error.hidden = false;
        }
        if (s.status === "running") { window.setTimeout(poll, 1000); } else { window.location.reload(); }
      })
      .catch(function () { window.setTimeout(poll, 2000); });
  }
  window.setTimeout(poll, 1000);
}());
