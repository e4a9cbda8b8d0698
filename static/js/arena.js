/*
 * Shared by every page's scripts, loaded first (templates/base.html):
 *
 * - the one DOM helper, el(), and its companions. Model and game output is
 *   untrusted text (docs/design.md §5), so text only ever reaches the page through
 *   textContent: these helpers are the way to build markup from it;
 * - the status vocabulary, read from the JSON block "status-vocabulary" that
 *   the server renders from arena/models/ (Episode.TERMINAL, Run.TERMINAL),
 *   so no script spells out which statuses end an episode or a run.
 */
(function () {
  "use strict";

  /* Create an element with an optional class and text content. */
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function clear(node) {
    while (node && node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function setText(node, text) {
    if (node) {
      node.textContent = text === undefined || text === null ? "" : String(text);
    }
  }

  function isNum(x) {
    return typeof x === "number" && isFinite(x);
  }

  /*
   * A score or reward with four significant digits (0.0033670236888049576 →
   * "0.003367", 29.123456 → "29.12", 12345.6 → "12346"); integers stay whole.
   * The pages' template filter `sig` (leaderboard/templatetags/arena_format.py)
   * writes numbers the same way.
   */
  function fmtScore(x) {
    if (!isNum(x)) {
      return "—";
    }
    if (Number.isInteger(x)) {
      return String(x);
    }
    if (Math.abs(x) >= 1e4) {
      return x.toFixed(0);
    }
    var text = String(Number(x.toPrecision(4)));
    return text.indexOf("e") === -1 ? text : x.toExponential(3);
  }

  function readVocabulary() {
    var node = document.getElementById("status-vocabulary");
    if (!node) {
      return {};
    }
    try {
      return JSON.parse(node.textContent) || {};
    } catch (err) {
      return {};
    }
  }

  var vocabulary = readVocabulary();

  function statusList(kind, key) {
    var entry = vocabulary[kind];
    return entry && Array.isArray(entry[key]) ? entry[key].slice() : [];
  }

  function vocabularyOf(kind) {
    var all = statusList(kind, "statuses");
    var terminal = statusList(kind, "terminal");
    return {
      all: all,
      terminal: terminal,
      isTerminal: function (status) {
        return terminal.indexOf(status) >= 0;
      },
      // A known status that can still change: pages keep following it.
      isActive: function (status) {
        return all.indexOf(status) >= 0 && terminal.indexOf(status) < 0;
      },
    };
  }

  window.Arena = {
    el: el,
    clear: clear,
    setText: setText,
    isNum: isNum,
    fmtScore: fmtScore,
    episodeStatus: vocabularyOf("episode"),
    runStatus: vocabularyOf("run"),
  };
})();
