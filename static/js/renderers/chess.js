/*
 * Chess renderer: draws the position of a chess observation as an 8×8 board of
 * Unicode pieces (text nodes only), from a FEN (the match page's positions, LMAct's
 * 'fen' format) or from python-chess's board text (LMAct's 'ascii' format, and
 * 'ascii-annotated' with its rank and file labels), White at the bottom. The text the
 * model read is shown under the board. A text with no position in it (LMAct's 'pgn',
 * a move list) is shown as text, beside the episode's picture when it has one.
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
  // One rank of python-chess's board text, with the rank's label in the annotated format.
  var ASCII_RANK = /^(?:[1-8] )?([.pnbrqkPNBRQK](?: [.pnbrqkPNBRQK]){7})$/;

  /* The 8 ranks (8 first) of a FEN, each 8 cells: a piece letter or "". */
  function fenRanks(fen) {
    return fen.split(" ")[0].split("/").map(function (row) {
      var cells = [];
      row.split("").forEach(function (ch) {
        if (/[1-8]/.test(ch)) {
          for (var i = 0; i < Number(ch); i++) {
            cells.push("");
          }
        } else {
          cells.push(ch);
        }
      });
      return cells;
    });
  }

  /* The 8 ranks of python-chess's board text in `text`, or null. */
  function asciiRanks(text) {
    var ranks = [];
    text.split("\n").forEach(function (line) {
      var found = line.trim().match(ASCII_RANK);
      if (found) {
        ranks.push(found[1].split(" ").map(function (ch) { return ch === "." ? "" : ch; }));
      }
    });
    return ranks.length === 8 ? ranks : null;
  }

  /* The position in an observation's text: {ranks, label}, or null. */
  function position(text) {
    var fen = text.match(FEN);
    if (fen) {
      return { ranks: fenRanks(fen[0]), label: fen[0], whole: fen[0] === text.trim() };
    }
    var ranks = asciiRanks(text);
    return ranks ? { ranks: ranks, label: "from the board text", whole: false } : null;
  }

  function drawBoard(ranks, label) {
    var table = el("table", "chess-board board-drawn");
    table.setAttribute("aria-label", "Chess position " + label);
    ranks.forEach(function (cells, r) {
      var tr = el("tr");
      tr.appendChild(el("th", "chess-rank", String(8 - r)));
      cells.forEach(function (piece, c) {
        tr.appendChild(el("td", (r + c) % 2 === 0 ? "chess-light" : "chess-dark", piece ? PIECES[piece] || "?" : ""));
      });
      table.appendChild(tr);
    });
    var footer = el("tr");
    footer.appendChild(el("th"));
    "abcdefgh".split("").forEach(function (f) {
      footer.appendChild(el("th", "chess-file", f));
    });
    table.appendChild(footer);
    return table;
  }

  R.register("chess", R.boardFromText(
    position,
    function (found) { return drawBoard(found.ranks, found.label); },
    function (found) { return found.whole ? " board-fen" : ""; }
  ));
  // The match page draws its positions with the same board.
  R.chessPosition = position;
})();
