/*
 * Renderers of the grid games: tic-tac-toe (LMAct's 3×3 grid, 'ascii' and
 * 'ascii-annotated', and the head-to-head matches' positions) and Connect Four (the
 * matches' six rows of seven). The marks are read off the text the model was shown
 * ("X", "O", "." for an empty cell, one row a line, an optional row letter in front)
 * and drawn as a board: X and O in their cells, Connect Four's discs in a blue frame.
 * The text itself is shown under the board. A text without a whole grid in it is
 * shown as text.
 */
(function () {
  "use strict";
  var R = window.ArenaRenderers;
  if (!R) {
    return;
  }
  var el = window.Arena.el;

  /* The last `rows` consecutive lines of `columns` marks in `text`, or null. */
  function readGrid(text, rows, columns) {
    var row = new RegExp("^(?:[a-z] )?([XxOo.](?: [XxOo.]){" + (columns - 1) + "})$");
    var found = [];
    var best = null;
    text.split("\n").forEach(function (line) {
      var match = line.trim().match(row);
      if (match) {
        found.push(match[1].toUpperCase().split(" "));
        if (found.length === rows) {
          best = found.slice();
        }
      } else {
        found = [];
      }
    });
    return best;
  }

  function drawTicTacToe(grid) {
    var table = el("table", "grid-board tictactoe-board board-drawn");
    table.setAttribute("aria-label", "Tic-tac-toe board");
    var head = el("tr");
    head.appendChild(el("th"));
    ["1", "2", "3"].forEach(function (c) { head.appendChild(el("th", "grid-label", c)); });
    table.appendChild(head);
    grid.forEach(function (cells, r) {
      var tr = el("tr");
      tr.appendChild(el("th", "grid-label", "abc".charAt(r)));
      cells.forEach(function (mark) {
        tr.appendChild(el("td", "ttt-cell" + (mark === "." ? "" : " ttt-" + mark.toLowerCase()), mark === "." ? "" : mark));
      });
      table.appendChild(tr);
    });
    return table;
  }

  function drawConnectFour(grid) {
    var table = el("table", "grid-board connect-four-board board-drawn");
    table.setAttribute("aria-label", "Connect Four board");
    grid.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (mark) {
        var td = el("td", "c4-cell");
        var disc = el("span", "c4-disc" + (mark === "." ? "" : " c4-" + mark.toLowerCase()));
        disc.setAttribute("aria-label", mark === "." ? "empty" : mark);
        td.appendChild(disc);
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    var footer = el("tr");
    for (var c = 1; c <= grid[0].length; c++) {
      footer.appendChild(el("th", "grid-label", String(c)));
    }
    table.appendChild(footer);
    /* Which colour is which side: the page names the sides X and O, the board draws discs. */
    var legend = el("caption", "c4-legend");
    ["X", "O"].forEach(function (mark) {
      var key = el("span", "c4-key");
      key.appendChild(el("span", "c4-swatch c4-swatch-" + mark.toLowerCase()));
      key.appendChild(document.createTextNode(" " + mark));
      legend.appendChild(key);
    });
    table.insertBefore(legend, table.firstChild);
    return table;
  }

  function gridRenderer(rows, columns, draw) {
    return R.boardFromText(function (text) { return readGrid(text, rows, columns); }, draw);
  }

  R.register("tictactoe", gridRenderer(3, 3, drawTicTacToe));
  R.register("connect_four", gridRenderer(6, 7, drawConnectFour));
})();
