// Sorting a table by any column, in the browser: every <th> with data-sort-type holds a
// button; the cells give their value in data-sort (numbers unrounded, "" for none).
// Numbers sort numerically, text by the locale; rows without a value stay last in both
// directions, and ties keep the order the server ranked them in. The sorted header gets
// aria-sort, the others lose it, so a screen reader announces the order.
(function () {
  "use strict";

  function cellValue(row, index, type) {
    var cell = row.cells[index];
    var raw = cell ? (cell.getAttribute("data-sort") || "").trim() : "";
    if (raw === "") return null;
    if (type === "number") {
      var number = Number(raw);
      return Number.isFinite(number) ? number : null;
    }
    return raw;
  }

  function compare(a, b, type) {
    if (type === "number") return a - b;
    return a.localeCompare(b, undefined, { sensitivity: "base", numeric: true });
  }

  function sortBy(table, header) {
    var headers = header.parentNode.querySelectorAll("th[data-sort-type]");
    var index = Array.prototype.indexOf.call(header.parentNode.cells, header);
    var type = header.getAttribute("data-sort-type");
    var current = header.getAttribute("aria-sort");
    var direction;
    if (current === "ascending") direction = "descending";
    else if (current === "descending") direction = "ascending";
    else direction = header.getAttribute("data-sort-first") || "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).filter(function (row) {
      return row.cells.length > 1;  // not the "no results" row
    });
    rows.forEach(function (row, position) {
      if (!row.hasAttribute("data-order")) row.setAttribute("data-order", String(position));
    });
    var sign = direction === "ascending" ? 1 : -1;
    rows.sort(function (left, right) {
      var a = cellValue(left, index, type);
      var b = cellValue(right, index, type);
      if (a === null || b === null) {
        if (a === null && b === null) return Number(left.dataset.order) - Number(right.dataset.order);
        return a === null ? 1 : -1;
      }
      var order = compare(a, b, type) * sign;
      return order || Number(left.dataset.order) - Number(right.dataset.order);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(headers, function (other) {
      if (other === header) other.setAttribute("aria-sort", direction);
      else other.removeAttribute("aria-sort");
    });
  }

  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    table.querySelectorAll("th[data-sort-type] .sort-button").forEach(function (button) {
      button.addEventListener("click", function () {
        sortBy(table, button.closest("th"));
      });
    });
  });
})();
