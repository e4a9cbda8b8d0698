/*
 * The compare page: two episodes of the same game on one scrubber, each side
 * drawn with the player's panels and renderers (player/view.js, renderers/*.js),
 * the step where their executed actions first differ marked on the scrubber.
 *
 * Input: <script type="application/json" id="compare-data">
 * ({left, right: episode fields as on the episode page; step: the step to
 * open; last: the last step of the longer episode; first_difference:
 * {index, left, right} or null}) and templates/leaderboard/compare.html.
 * Both sides are addressed by step index: the same index is shown on both.
 */
(function () {
  "use strict";

  var URL_DEBOUNCE_MS = 200;

  var Arena = window.Arena;
  var view = Arena.view;
  var setText = Arena.setText;

  function byId(id) {
    return document.getElementById(id);
  }

  var root = byId("compare");
  var dataNode = byId("compare-data");
  if (!root || !dataNode) {
    return;
  }
  var data;
  try {
    data = JSON.parse(dataNode.textContent);
  } catch (err) {
    root.setAttribute("data-error", "bad compare data");
    return;
  }

  var ui = {
    title: byId("compare-title"),
    scrubber: byId("scrubber"),
    marks: byId("scrubber-marks"),
    stepLabel: byId("step-label"),
    first: byId("first-step"),
    prev: byId("prev-step"),
    next: byId("next-step"),
    last: byId("last-step"),
    difference: byId("difference-step"),
    message: byId("compare-message"),
  };

  var last = data.last;
  var difference = data.first_difference ? data.first_difference.index : null;
  var current = data.step;
  var urlTimer = null;
  var fullSteps = new Arena.transport.FullSteps(); // the last steps shown whole, both sides

  var sides = ["left", "right"].map(function (name) {
    var episode = data[name];
    return {
      episode: episode,
      state: new Arena.EpisodeState(episode),
      panels: view.stepPanels(name + "-"),
      endReason: byId(name + "-end-reason"),
      link: byId(name + "-link"),
      shownIndex: null,
    };
  });

  /* Draw both sides at step `index`; a side that had already ended says so. */
  function show(index) {
    current = Math.max(0, Math.min(last, index));
    sides.forEach(function (side) {
      drawSide(side, current);
    });
    ui.scrubber.value = String(current);
    ui.scrubber.setAttribute("aria-valuetext", "Step " + current + " of " + last);
    setText(ui.stepLabel, "Step " + current + " / " + last + (current === difference ? " · actions differ here" : ""));
    setText(ui.title, "Side by side: step " + current + " of " + last);
    ui.first.disabled = ui.prev.disabled = current <= 0;
    ui.next.disabled = ui.last.disabled = current >= last;
    if (ui.difference) {
      ui.difference.disabled = current === difference;
    }
    view.highlightMark(ui.marks, current);
    root.setAttribute("data-current-step", String(current));
    root.classList.toggle("is-at-difference", current === difference);
    scheduleUrlUpdate();
  }

  function drawSide(side, index) {
    var state = side.state;
    var pos = state.positionForIndex(index);
    var step = state.stepWithIndex(index);
    side.link.setAttribute("href", side.link.pathname + "?step=" + index);
    if (step && side.shownIndex !== index) {
      side.shownIndex = index;
      view.renderStepWhole(
        side.panels,
        step,
        fullSteps,
        function () {
          return side.shownIndex === index;
        },
        function (version) {
          view.renderStep(side.panels, version, side.episode, {
            position: pos,
            steps: state.steps,
            previous: pos > 0 ? state.steps[pos - 1] : null,
            cumulative: state.cumulative[pos],
          });
        }
      );
    } else if (!step) {
      side.shownIndex = null;
      view.renderNoStep(side.panels, state.steps.length ? "This episode had already ended." : "This episode has no recorded steps.");
    }
    // Why the episode ended, from its last step on.
    var lastStep = state.lastStep();
    if (state.isTerminal() && (!lastStep || index >= lastStep.index)) {
      view.renderEnd(side.endReason, side.episode, lastStep, { position: state.lastPos(), steps: state.steps, final: true });
    } else {
      side.endReason.hidden = true;
      Arena.clear(side.endReason);
    }
  }

  function drawDifferenceMark() {
    if (difference === null) {
      return;
    }
    var title = "Actions first differ at step " + difference;
    view.drawMarks(ui.marks, [{ pos: difference, step: difference, kinds: ["differ"], title: title }], last);
  }

  function scheduleUrlUpdate() {
    if (urlTimer !== null) {
      return;
    }
    urlTimer = window.setTimeout(function () {
      urlTimer = null;
      var url = new URL(window.location.href);
      url.searchParams.set("step", String(current));
      if (url.href !== window.location.href) {
        try {
          window.history.replaceState(window.history.state, "", url.href);
        } catch (err) {
          // Browsers throttle history updates; the next move will try again.
        }
      }
    }, URL_DEBOUNCE_MS);
  }

  function bindEvents() {
    ui.scrubber.addEventListener("input", function () {
      show(parseInt(ui.scrubber.value, 10) || 0);
    });
    ui.first.addEventListener("click", function () {
      show(0);
    });
    ui.prev.addEventListener("click", function () {
      show(current - 1);
    });
    ui.next.addEventListener("click", function () {
      show(current + 1);
    });
    ui.last.addEventListener("click", function () {
      show(last);
    });
    if (ui.difference) {
      ui.difference.addEventListener("click", function () {
        show(difference);
      });
    }
    ui.marks.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest(".mark") : null;
      if (mark && mark.hasAttribute("data-pos")) {
        show(parseInt(mark.getAttribute("data-pos"), 10));
      }
    });
    view.bindKeys(ui.scrubber, {
      move: function (direction) {
        show(current + direction);
      },
      // The one marked event here is the first difference.
      jumpToEvent: function (direction) {
        if (difference !== null && (difference - current) * direction > 0) {
          show(difference);
        }
      },
      first: function () {
        show(0);
      },
      last: function () {
        show(last);
      },
    });
  }

  function load() {
    setText(ui.message, "Loading steps…");
    root.removeAttribute("data-error");
    var loads = sides.map(function (side) {
      return Arena.transport.fetchSteps(side.episode.steps_url, side.state.heldThrough(), function (results) {
        side.state.addSteps(results);
      });
    });
    Promise.all(loads)
      .then(function () {
        setText(ui.message, "");
        ui.scrubber.disabled = false;
        drawDifferenceMark();
        // Controls act once both episodes are held (a retry must not bind twice).
        if (root.getAttribute("data-ready") !== "1") {
          bindEvents();
        }
        show(current);
        root.setAttribute("data-ready", "1");
      })
      .catch(function (err) {
        view.showLoadError(ui.message, root, err, load);
      });
  }

  load();
})();
