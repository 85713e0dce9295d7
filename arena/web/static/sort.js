// Sorts a table.sortable in place when a heading is clicked, without reloading the page.
// Each sortable <th> has data-sort (the column's key), data-type ("num" or "text") and
// data-order (the order of a first click); each cell has data-value. The heading's link
// (?sort=KEY&order=ORDER) sorts on the server when JavaScript is off.
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    const cell = row.cells[index];
    const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
    return numeric ? parseFloat(raw) : raw.toLocaleLowerCase();
  }

  function sortTable(table, headers, th, order) {
    const index = headers.indexOf(th);
    const numeric = th.dataset.type === "num";
    const sign = order === "ascending" ? 1 : -1;
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort(function (a, b) {
      const x = cellValue(a, index, numeric);
      const y = cellValue(b, index, numeric);
      let c = 0;
      if (numeric) {
        c = x - y;
      } else {
        c = x < y ? -1 : x > y ? 1 : 0;
      }
      // ties keep the leaderboard's order (its rank)
      return c !== 0 ? sign * c : Number(a.dataset.rank) - Number(b.dataset.rank);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    headers.forEach(function (h) {
      if (h === th) {
        h.setAttribute("aria-sort", order);
      } else {
        h.removeAttribute("aria-sort");
      }
      const link = h.querySelector("a");
      if (link && h.dataset.sort) {
        const next = h === th ? (order === "ascending" ? "desc" : "asc") : h.dataset.order;
        link.setAttribute("href", "?sort=" + h.dataset.sort + "&order=" + next);
      }
    });
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "?sort=" + th.dataset.sort + "&order=" + (order === "ascending" ? "asc" : "desc"));
    }
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    const headers = Array.from(table.tHead.rows[0].cells);
    headers.forEach(function (th) {
      if (!th.dataset.sort) {
        return;
      }
      th.addEventListener("click", function (event) {
        event.preventDefault();
        const current = th.getAttribute("aria-sort");
        let order;
        if (current === "ascending") {
          order = "descending";
        } else if (current === "descending") {
          order = "ascending";
        } else {
          order = th.dataset.order === "desc" ? "descending" : "ascending";
        }
        sortTable(table, headers, th, order);
      });
    });
  });
})();
