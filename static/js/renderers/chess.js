/*
 * Chess renderer: draws the board of a FEN observation as an 8×8 grid of
 * Unicode pieces (text nodes only). Observations that are not a FEN (ASCII
 * boards, PGN move lists) are shown as text, with the board drawn above when
 * the text contains a FEN line.
 */
(function () {
  "use strict";
  var R = window.ArenaRenderers;
  if (!R) {
    return;
  }
  var el = window.Arena.el;
  var PIECES = {
    K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
    k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F",
  };
  var FEN = /([pnbrqkPNBRQK1-8]{1,8}\/){7}[pnbrqkPNBRQK1-8]{1,8} [wb] [KQkq-]+ [a-h1-8-]+ \d+ \d+/;

  function parseBoard(fen) {
    var rows = fen.split(" ")[0].split("/");
    return rows.map(function (row) {
      var cells = [];
      row.split("").forEach(function (ch) {
        if (/[1-8]/.test(ch)) {
          for (var i = 0; i < Number(ch); i++) {
            cells.push("");
          }
        } else {
          cells.push(PIECES[ch] || "?");
        }
      });
      return cells;
    });
  }

  function drawBoard(fen) {
    var table = el("table", "chess-board");
    table.setAttribute("aria-label", "Chess position " + fen);
    var files = "abcdefgh";
    parseBoard(fen).forEach(function (cells, r) {
      var tr = el("tr");
      tr.appendChild(el("th", "chess-rank", String(8 - r)));
      cells.forEach(function (piece, c) {
        var td = el("td", (r + c) % 2 === 0 ? "chess-light" : "chess-dark", piece);
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    var footer = el("tr");
    footer.appendChild(el("th"));
    files.split("").forEach(function (f) {
      footer.appendChild(el("th", "chess-file", f));
    });
    table.appendChild(footer);
    return table;
  }

  R.register("chess", {
    render: function (container, step, episode, context) {
      var text = typeof step.observation_text === "string" ? step.observation_text : "";
      var match = text.match(FEN);
      if (match) {
        container.appendChild(drawBoard(match[0]));
      }
      if (!match || match[0] !== text.trim()) {
        R.get(step.observation_image ? "image" : "text").render(container, step, episode, context);
      } else {
        container.appendChild(el("pre", "obs-text", text));
      }
    },
  });
})();
