/*
 * AdventureGame renderer: the feedback the player read (the transcript line), and
 * beside it the state after this turn — the current room, the inventory, each goal
 * and whether it holds, and a small map of the rooms visited with their passages.
 */
(function () {
  "use strict";
  var R = window.ArenaRenderers;
  if (!R) {
    return;
  }
  var el = window.Arena.el;

  function drawMap(visited, passages, current) {
    // Rooms on a circle, passages as lines: an SVG built with createElementNS.
    var ns = "http://www.w3.org/2000/svg";
    var size = 220;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    svg.setAttribute("class", "adventure-map");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "Rooms visited: " + visited.join(", "));
    var position = {};
    visited.forEach(function (room, i) {
      var angle = (2 * Math.PI * i) / Math.max(1, visited.length) - Math.PI / 2;
      position[room] = [size / 2 + 75 * Math.cos(angle), size / 2 + 75 * Math.sin(angle)];
    });
    passages.forEach(function (pair) {
      var a = position[pair[0]];
      var b = position[pair[1]];
      if (!a || !b) {
        return;
      }
      var line = document.createElementNS(ns, "line");
      line.setAttribute("x1", a[0]);
      line.setAttribute("y1", a[1]);
      line.setAttribute("x2", b[0]);
      line.setAttribute("y2", b[1]);
      line.setAttribute("class", "map-passage");
      svg.appendChild(line);
    });
    visited.forEach(function (room) {
      var p = position[room];
      var dot = document.createElementNS(ns, "circle");
      dot.setAttribute("cx", p[0]);
      dot.setAttribute("cy", p[1]);
      dot.setAttribute("r", room === current ? 9 : 6);
      dot.setAttribute("class", room === current ? "map-room map-current" : "map-room");
      svg.appendChild(dot);
      var label = document.createElementNS(ns, "text");
      label.setAttribute("x", p[0]);
      label.setAttribute("y", p[1] + 20);
      label.setAttribute("class", "map-label");
      label.textContent = room;
      svg.appendChild(label);
    });
    return svg;
  }

  R.register("adventure", {
    render: function (container, step, episode, context) {
      R.get("text").render(container, step, episode, context);
      var info = step.info || {};
      if (!info.room) {
        return;
      }
      var box = el("div", "adventure-state");
      var facts = el("div", "adventure-facts");
      facts.appendChild(el("p", null, "After this turn: in the " + info.room));
      var inventory = Array.isArray(info.inventory) && info.inventory.length ? info.inventory.join(", ") : "nothing";
      facts.appendChild(el("p", null, "Carrying: " + inventory));
      if (Array.isArray(info.goals)) {
        var list = el("ul", "adventure-goals");
        info.goals.forEach(function (goal) {
          var item = el("li", goal.achieved ? "goal-met" : "goal-open", (goal.achieved ? "\u2713 " : "\u2717 ") + goal.text);
          list.appendChild(item);
        });
        facts.appendChild(list);
      }
      var turn = info.turn || {};
      if (turn.failure) {
        facts.appendChild(el("p", "error-text", "Failed: " + turn.failure));
      }
      var labels = [];
      if (turn.epistemic) {
        labels.push("epistemic (+" + (turn.epistemic_gain || 0) + " facts)");
      }
      if (turn.pragmatic) {
        labels.push("pragmatic");
      }
      if (labels.length) {
        facts.appendChild(el("p", "muted", "Action: " + labels.join(", ")));
      }
      box.appendChild(facts);
      if (Array.isArray(info.visited) && info.visited.length) {
        box.appendChild(drawMap(info.visited, info.passages || [], info.room));
      }
      container.appendChild(box);
    },
  });
})();
