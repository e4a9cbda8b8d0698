/*
 * infogather renderer: the observation text (scene, turns so far, budget), then what
 * this step did — the object picked and its reward — and the reward rules still
 * consistent with everything observed after it (from step.info).
 */
(function () {
  "use strict";
  var R = window.ArenaRenderers;
  if (!R) {
    return;
  }
  var el = window.Arena.el;
  R.register("infogather", {
    render: function (container, step, episode, context) {
      R.get("text").render(container, step, episode, context);
      var info = step.info || {};
      var box = el("div", "infogather-step");
      var picked = info.picked
        ? "Picked up the " + info.picked + ": reward " + (info.reward === null || info.reward === undefined ? "?" : info.reward)
        : info.illegal_reason
          ? "Turn wasted: " + info.illegal_reason
          : "No object picked this turn";
      box.appendChild(el("p", "infogather-picked", picked));
      if (typeof info.belief_score === "number") {
        box.appendChild(
          el("p", "muted", "Stated rule is " + (info.belief_score ? "correct" : "not (yet) correct"))
        );
      }
      if (Array.isArray(info.consistent)) {
        var title = info.consistent.length === 1
          ? "One rule left — sufficient information"
          : info.consistent.length + " rules still consistent after this step";
        box.appendChild(el("div", "infogather-count", title));
        var list = el("ul", "infogather-rules");
        info.consistent.slice(0, 40).forEach(function (rule) {
          list.appendChild(el("li", null, rule));
        });
        if (info.consistent.length > 40) {
          list.appendChild(el("li", "muted", "… and " + (info.consistent.length - 40) + " more"));
        }
        box.appendChild(list);
      }
      container.appendChild(box);
    },
  });
})();
