/*
 * The match page's player: steps through a head-to-head match move by move and shows
 * both sides at once — the board, whose move it is, and for each side its latest move
 * up to the shown position: the prompt it was sent, its reasoning and completion, every
 * answer it gave with the feedback on illegal ones, its tokens and latency, and its
 * totals so far. A running match is followed live over /ws/matches/<id>/ (the moves
 * JSON is polled if the socket cannot be opened). The board is drawn by the game's
 * renderer of the episode player (static/js/renderers/). Model text reaches the page
 * through textContent only (Arena.el).
 */
(function () {
  "use strict";
  var el = window.Arena.el;
  var clear = window.Arena.clear;
  var data = JSON.parse(document.getElementById("match-data").textContent);
  var match = data.match;
  var moves = data.moves;
  var root = document.getElementById("match-player");
  var scrubber = document.getElementById("match-scrubber");
  var position = moves.length;
  var following = true;
  function boardAt(p) {
    return p === 0 ? match.start_board : moves[p - 1].board_after;
  }

  /* The position drawn by the game's renderer, the one the episode player uses for
     the same board (static/js/renderers/): chess from the FEN, the grids from their text. */
  function drawBoard(p) {
    var holder = document.getElementById("match-board");
    var text = boardAt(p) || "";
    window.ArenaRenderers.render(holder, { index: p, observation_text: text }, { renderer: match.renderer });
  }

  function fmt(value, unit) {
    return value === null || value === undefined ? "–" : Math.round(value).toLocaleString() + (unit || "");
  }

  function turnText(p) {
    if (p < moves.length) {
      var seat = match.seats[moves[p].seat];
      return "To move: " + seat.side + " (" + seat.name + ")";
    }
    if (["finished", "failed", "cancelled"].indexOf(match.status) >= 0) {
      return "Game over: " + (match.end_reason || match.error || match.status);
    }
    return "Waiting for the next move…";
  }

  function block(title, text, className) {
    var wrap = el("div", "match-block " + (className || ""));
    wrap.appendChild(el("h4", null, title));
    wrap.appendChild(el("pre", "match-text", text || "(none)"));
    return wrap;
  }

  function moveDetail(move) {
    var box = el("div", "match-move");
    var head = "Move " + (move.index + 1) + ": " + (move.action || "forfeit");
    if (!match.seats[move.seat].is_model) {
      box.appendChild(el("p", "match-move-head", head + " · a baseline: no model call"));
      box.appendChild(block("Observation", move.observation, "match-observation"));
      return box;
    }
    head += " · " + move.num_attempts + (move.num_attempts === 1 ? " answer" : " answers") +
      " · tokens " + fmt(move.tokens_in) + " in / " + fmt(move.tokens_out) + " out" +
      (move.reasoning_tokens ? " (" + fmt(move.reasoning_tokens) + " reasoning)" : "") +
      " · " + fmt(move.latency_ms, " ms");
    box.appendChild(el("p", "match-move-head", head));
    if (move.messages.length) {
      var prompt = el("details", "match-prompt");
      prompt.appendChild(el("summary", null, "Prompt as sent"));
      move.messages.forEach(function (m) { prompt.appendChild(block(m.role, m.content, "match-message")); });
      box.appendChild(prompt);
    } else {
      box.appendChild(block("Observation", move.observation, "match-observation"));
    }
    move.attempts.forEach(function (attempt, i) {
      var answer = el("div", "match-attempt" + (attempt.legal ? "" : " illegal"));
      if (move.attempts.length > 1) {
        answer.appendChild(el("h4", null, "Answer " + (i + 1) + (attempt.legal ? " (legal)" : " (not a legal move)")));
      }
      answer.appendChild(block("Reasoning", attempt.reasoning, "match-reasoning"));
      if (attempt.completion) {
        answer.appendChild(block("Completion", attempt.completion, "match-completion"));
      }
      if (attempt.feedback) {
        answer.appendChild(block("Feedback sent", attempt.feedback, "match-feedback"));
      }
      box.appendChild(answer);
    });
    return box;
  }

  function drawSides(p) {
    [0, 1].forEach(function (seat) {
      var detail = root.querySelector('[data-detail="' + seat + '"]');
      var totals = root.querySelector('[data-totals="' + seat + '"]');
      clear(detail);
      var latest = null;
      var sum = { moves: 0, tin: 0, tout: 0, ms: 0 };
      for (var i = 0; i < p; i++) {
        if (moves[i].seat === seat) {
          latest = moves[i];
          sum.moves += 1;
          sum.tin += moves[i].tokens_in || 0;
          sum.tout += moves[i].tokens_out || 0;
          sum.ms += moves[i].latency_ms || 0;
        }
      }
      var count = sum.moves + (sum.moves === 1 ? " move" : " moves");
      totals.textContent = match.seats[seat].is_model
        ? count + " · tokens " + fmt(sum.tin) + " in / " + fmt(sum.tout) + " out · thinking time " +
          (sum.ms / 1000).toFixed(1) + " s"
        : count;
      if (latest) {
        detail.appendChild(moveDetail(latest));
      } else {
        detail.appendChild(el("p", "muted", "No move yet."));
      }
    });
  }

  function show(p) {
    position = Math.max(0, Math.min(p, moves.length));
    following = position === moves.length;
    scrubber.max = String(moves.length);
    scrubber.value = String(position);
    document.getElementById("match-position").textContent = "after move " + position + " of " + moves.length;
    document.getElementById("match-turn").textContent = turnText(position);
    drawBoard(position);
    drawSides(position);
    var rows = document.querySelectorAll("#match-moves tbody tr");
    rows.forEach(function (row) { row.classList.toggle("current", Number(row.dataset.index) === position - 1); });
  }

  function addMoveRow(move) {
    var tbody = document.querySelector("#match-moves tbody");
    var tr = el("tr");
    tr.dataset.index = String(move.index);
    [String(move.index + 1), match.seats[move.seat].side, move.action || "forfeit", String(move.num_attempts),
      fmt(move.tokens_in) + "/" + fmt(move.tokens_out), fmt(move.latency_ms, " ms")].forEach(function (text) {
      tr.appendChild(el("td", null, text));
    });
    tbody.appendChild(tr);
  }

  function receive(move) {
    if (move.index !== moves.length) {
      return; // already shown, or out of order (the channel sends in order)
    }
    var follow = following;
    moves.push(move);
    addMoveRow(move);
    show(follow ? moves.length : position);
  }

  function started(payload) {
    match = payload;
    var opening = (match.opening ? match.opening + ": " : "") + (match.opening_moves.join(" ") || "the empty board");
    document.getElementById("match-opening").textContent = opening;
    document.getElementById("match-status").textContent = match.status;
    show(following ? moves.length : position);
  }

  function ended(payload) {
    started(payload);
    var badge = document.getElementById("match-live");
    if (badge) {
      badge.textContent = "ended";
      badge.classList.add("ended");
    }
    document.getElementById("match-status").textContent = match.status;
    show(following ? moves.length : position);
  }

  root.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () {
      var go = button.dataset.go;
      show(go === "first" ? 0 : go === "prev" ? position - 1 : go === "next" ? position + 1 : moves.length);
    });
  });
  scrubber.addEventListener("input", function () { show(Number(scrubber.value)); });
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT") { return; }
    if (event.key === "ArrowLeft") { show(position - 1); }
    if (event.key === "ArrowRight") { show(position + 1); }
  });

  function poll() {
    fetch("/matches/" + match.id + "/moves.json?after=" + (moves.length - 1))
      .then(function (response) { return response.json(); })
      .then(function (body) {
        if (!match.start_board && body.match.start_board) {
          started(body.match);
        }
        body.moves.forEach(receive);
        if (["finished", "failed", "cancelled"].indexOf(body.match.status) >= 0) {
          ended(body.match);
        } else {
          setTimeout(poll, 2000);
        }
      })
      .catch(function () { setTimeout(poll, 5000); });
  }

  function live() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket;
    try {
      socket = new WebSocket(scheme + window.location.host + root.dataset.ws);
    } catch (error) {
      poll();
      return;
    }
    var opened = false;
    socket.onopen = function () { opened = true; };
    socket.onmessage = function (event) {
      var message = JSON.parse(event.data);
      if (message.type === "move") {
        receive(message.move);
      } else if (message.type === "match") {
        started(message.match);
      } else if (message.type === "end") {
        ended(message.match);
      }
    };
    socket.onclose = function () {
      if (!opened || ["finished", "failed", "cancelled"].indexOf(match.status) < 0) {
        poll();
      }
    };
  }

  show(moves.length);
  if (root.dataset.live === "1") {
    live();
  }
})();
