/*
 * The episode page's player: replay of a stored episode, or live view of a
 * running one. It wires the pieces loaded before it (episode.html):
 *
 *   arena.js             el(), the status vocabulary
 *   renderers/*.js       window.ArenaRenderers, one renderer per observation kind
 *   player/state.js      Arena.EpisodeState: the steps held and the selection
 *   player/transport.js  Arena.transport: REST paging, websocket, polling
 *   player/windows.js    Arena.StepWindows: a long episode a window at a time
 *   player/view.js       Arena.view: step panels, end note, marks, keys
 *
 * and owns what is specific to this page: the scrubber and buttons, playback
 * and speed, ?step=N, following the newest step live, and the start-up.
 *
 * An ended episode of more than FULL_LOAD_MAX_STEPS steps is replayed from
 * windows of steps (`windows`; positions are then step indices) and the
 * marks of the whole episode; any other is held whole in `state`, as steps
 * arrive (positions index state.steps).
 *
 * Input: the JSON in <script type="application/json" id="episode-data">
 * (episode fields, `steps_url`, `ws_path`) and the markup of
 * templates/leaderboard/_player.html.
 */
(function () {
  "use strict";

  var BASE_STEP_MS = 1000; // 1× = one step per second
  var URL_DEBOUNCE_MS = 200;
  var SPEEDS = ["0.5", "1", "2", "4", "8"];
  var SPEED_KEY = "arena.player.speed";
  var FULL_LOAD_MAX_STEPS = 1000;

  var Arena = window.Arena;
  var view = Arena.view;
  var setText = Arena.setText;
  var isNum = Arena.isNum;

  function byId(id) {
    return document.getElementById(id);
  }

  var root = byId("player");
  var dataNode = byId("episode-data");
  if (!root || !dataNode) {
    return;
  }

  var episode;
  try {
    episode = JSON.parse(dataNode.textContent);
  } catch (err) {
    root.setAttribute("data-error", "bad episode data");
    return;
  }
  if (!episode || typeof episode !== "object") {
    return;
  }

  var ui = {
    scrubber: byId("scrubber"),
    marks: byId("scrubber-marks"),
    stepLabel: byId("step-label"),
    play: byId("play-toggle"),
    first: byId("first-step"),
    prev: byId("prev-step"),
    next: byId("next-step"),
    last: byId("last-step"),
    speed: byId("speed"),
    jumpLive: byId("jump-live"),
    liveBadge: byId("live-badge"),
    message: byId("player-message"),
    endReason: byId("end-reason"),
    panels: view.stepPanels(""),
  };

  var state = new Arena.EpisodeState(episode);
  var windows = null; // Arena.StepWindows when a long ended episode is replayed by windows
  var feed = null; // the live feed while the episode is followed live
  var fullSteps = new Arena.transport.FullSteps(); // the last steps shown whole
  var playback = { playing: false, timer: null, speed: 1 };
  var shownIndex = null; // step.index whose panels are drawn
  var urlTimer = null;
  var marksQueued = false;
  var marksLoaded = false; // windows: the episode's marks are in

  function setMessage(text) {
    setText(ui.message, text || "");
  }

  function markReady() {
    root.setAttribute("data-ready", "1");
  }

  /* ------------------------------------------------------------ positions */

  function lastPos() {
    return windows ? windows.lastIndex : state.lastPos();
  }

  /* The step at a position, or null (in windows: not fetched yet). */
  function stepAt(pos) {
    if (pos < 0) {
      return null;
    }
    return windows ? windows.step(pos) : state.steps[pos] || null;
  }

  function indexAt(pos) {
    return windows ? pos : state.steps[pos].index;
  }

  /* ------------------------------------------------------------ steps */

  function addSteps(list) {
    var added = state.addSteps(list);
    if (added === 0) {
      return 0;
    }
    if (state.live && !state.ended) {
      view.updateHeader(episode, root); // live counts of steps and illegal steps
    }
    afterStepsChanged();
    return added;
  }

  function afterStepsChanged() {
    var last = lastPos();
    ui.scrubber.max = String(Math.max(0, last));
    ui.scrubber.disabled = last < 0;
    ui.play.disabled = last < 0;
    queueMarks();

    if (state.pos < 0) {
      // First steps: pick the deep-linked one if we have it, else the start
      // (replay) or the newest (live).
      select(state.live ? last : 0, { auto: true });
    } else if (state.live && (state.following || state.requested !== null)) {
      // Live: show the newest step, also while a deep-linked step is awaited.
      select(last, { auto: true });
    } else {
      updateChrome();
    }
    applyRequested(false);
  }

  /*
   * Apply ?step=N. While live steps are still arriving, it waits until step N
   * exists; with `force` (all steps loaded) it clamps to the last step.
   */
  function applyRequested(force) {
    if (state.requested === null || state.steps.length === 0) {
      return;
    }
    var wanted = state.requested;
    var haveIt = state.steps[state.lastPos()].index >= wanted;
    if (!haveIt && !force) {
      return;
    }
    state.requested = null;
    var pos = state.positionForIndex(wanted);
    // A deep-linked step stays put in live mode, even if it is the newest
    // one so far (the catch-up may still be streaming); "Jump to live" resumes.
    state.following = !state.live;
    select(pos, { auto: true });
  }

  /* ------------------------------------------------------------ marks */

  // Marks are redrawn at most once a frame: a catch-up brings hundreds of steps.
  function queueMarks() {
    if (marksQueued) {
      return;
    }
    marksQueued = true;
    var run = function () {
      marksQueued = false;
      view.drawMarks(ui.marks, windows ? windowMarks() : view.eventMarks(state), lastPos());
      view.highlightMark(ui.marks, state.pos);
    };
    if (window.requestAnimationFrame && !document.hidden) {
      window.requestAnimationFrame(run);
    } else {
      window.setTimeout(run, 0);
    }
  }

  function windowMarks() {
    return windows.events.map(function (event) {
      return { pos: event.index, step: event.index, kinds: event.kinds, title: "Step " + event.index + ": " + event.kinds.join(", ") };
    });
  }

  /* ------------------------------------------------------------ selection */

  /*
   * Select the step at a position. `opts.auto` marks a move the player made
   * by itself (live follow, deep link); a user move decides whether the live
   * view keeps following the newest step. In windows, `opts.now` fetches the
   * step's window at once rather than when the moves pause.
   */
  function select(pos, opts) {
    var options = opts || {};
    var last = lastPos();
    if (last < 0) {
      state.pos = -1;
      updateChrome();
      return;
    }
    pos = Math.max(0, Math.min(last, Math.round(pos)));
    if (!options.auto) {
      state.requested = null;
      if (state.live) {
        state.following = pos === last;
      }
    }
    state.pos = pos;
    if (windows) {
      windows.want(pos, Boolean(options.now));
    }
    renderStep();
    updateChrome();
    scheduleUrlUpdate();
  }

  /*
   * Draw the panels of the selected step (only when the step changes), and
   * again whole when its long texts came cut.
   */
  function renderStep() {
    var step = stepAt(state.pos);
    if (!step) {
      if (windows && state.pos >= 0) {
        // Its window is on its way (windowArrived draws it), or came without it.
        var held = windows.holds(state.pos);
        shownIndex = null;
        view.renderNoStep(ui.panels, held ? "No step was recorded at index " + state.pos + "." : "Loading step " + state.pos + "…");
        root.setAttribute("data-step-loading", held ? "0" : "1");
      }
      return;
    }
    root.removeAttribute("data-step-loading");
    if (shownIndex === step.index) {
      return;
    }
    var index = step.index;
    var pos = state.pos;
    shownIndex = index;
    view.renderStepWhole(
      ui.panels,
      step,
      fullSteps,
      function () {
        return shownIndex === index;
      },
      function (version) {
        view.renderStep(ui.panels, version, episode, renderContext(pos));
      }
    );
    root.setAttribute("data-current-legal", step.legal === false ? "0" : "1");
  }

  /* What renderers get beside a step: {position, steps, previous, cumulative}. */
  function renderContext(pos) {
    if (windows) {
      var around = windows.around(pos);
      return { position: around.position, steps: around.steps, previous: stepAt(pos - 1), cumulative: windows.cumulative(pos) };
    }
    return {
      position: pos,
      steps: state.steps,
      previous: pos > 0 ? state.steps[pos - 1] : null,
      cumulative: state.cumulative[pos],
    };
  }

  /* Everything that depends on position/count but not on the step's content. */
  function updateChrome() {
    var last = lastPos();
    var hasSteps = last >= 0;

    if (hasSteps && state.pos >= 0) {
      var index = indexAt(state.pos);
      ui.scrubber.value = String(state.pos);
      ui.scrubber.setAttribute("aria-valuetext", "Step " + index + " of " + indexAt(last));
      setText(ui.stepLabel, "Step " + index + " / " + indexAt(last));
      root.setAttribute("data-current-step", String(index));
    } else {
      setText(ui.stepLabel, "Step – / –");
      root.removeAttribute("data-current-step");
    }
    root.setAttribute("data-step-count", String(windows ? windows.count : state.steps.length));
    root.setAttribute("data-steps-held", String(windows ? windows.heldCount() : state.steps.length));

    ui.first.disabled = !hasSteps || state.pos <= 0;
    ui.prev.disabled = !hasSteps || state.pos <= 0;
    ui.next.disabled = !hasSteps || state.pos >= last;
    ui.last.disabled = !hasSteps || state.pos >= last;
    ui.jumpLive.hidden = !(state.live && hasSteps && !state.following);
    if (ui.liveBadge) {
      ui.liveBadge.hidden = !state.live;
    }
    view.highlightMark(ui.marks, state.pos);
    updateEndReason();

    if (!hasSteps) {
      shownIndex = null;
      view.renderNoStep(ui.panels, emptyNote());
    }
  }

  function emptyNote() {
    if (state.loading) {
      return "Loading steps…";
    }
    if (state.live) {
      // A model's episode may wait minutes for a turn at its endpoint, or in the queue.
      if (state.episode.status === "queued") {
        return "Waiting for the first step: the episode is queued (its run's page says why).";
      }
      if (state.episode.submission && state.episode.submission.is_baseline) {
        return "Waiting for the first step…";
      }
      return "Waiting for the first step: the first answer, or a turn at the endpoint (its run's page says why)…";
    }
    if (state.isTerminal()) {
      return "This episode has no recorded steps.";
    }
    return "Loading…";
  }

  /* The end note shows on the last step of an ended episode (or when it has none). */
  function updateEndReason() {
    var last = lastPos();
    var show = state.isTerminal() && (last < 0 || state.pos === last);
    if (!show) {
      ui.endReason.hidden = true;
      Arena.clear(ui.endReason);
      return;
    }
    var context = renderContext(state.pos);
    view.renderEnd(ui.endReason, episode, stepAt(state.pos), { position: context.position, steps: context.steps, final: true });
  }

  /* ------------------------------------------------------------ URL */

  function readRequestedStep() {
    var raw = new URLSearchParams(window.location.search).get("step");
    if (raw === null || raw === "") {
      return null;
    }
    var n = parseInt(raw, 10);
    if (isNaN(n)) {
      return null;
    }
    return Math.max(0, n);
  }

  function scheduleUrlUpdate() {
    if (urlTimer !== null) {
      return;
    }
    urlTimer = window.setTimeout(function () {
      urlTimer = null;
      updateUrl();
    }, URL_DEBOUNCE_MS);
  }

  function updateUrl() {
    if (!window.history || !window.history.replaceState) {
      return;
    }
    var url = new URL(window.location.href);
    if (state.pos < 0 || lastPos() < 0 || (state.live && state.following)) {
      url.searchParams.delete("step");
    } else {
      url.searchParams.set("step", String(indexAt(state.pos)));
    }
    if (url.href !== window.location.href) {
      try {
        window.history.replaceState(window.history.state, "", url.href);
      } catch (err) {
        // Browsers throttle history updates; the next move will try again.
      }
    }
  }

  /* ------------------------------------------------------------ playback */

  function setPlaying(playing) {
    playback.playing = playing;
    setText(ui.play, playing ? "‖ Pause" : "▶ Play");
    ui.play.setAttribute("aria-pressed", playing ? "true" : "false");
    root.setAttribute("data-playing", playing ? "1" : "0");
    if (playback.timer !== null) {
      window.clearTimeout(playback.timer);
      playback.timer = null;
    }
    if (playing) {
      playback.timer = window.setTimeout(tick, BASE_STEP_MS / playback.speed);
    }
  }

  function togglePlay() {
    if (playback.playing) {
      setPlaying(false);
      return;
    }
    if (lastPos() < 0) {
      return;
    }
    // Replaying from the end starts over, as a video player does.
    if (!state.live && state.pos >= lastPos()) {
      select(0);
    }
    setPlaying(true);
  }

  function tick() {
    playback.timer = null;
    if (!playback.playing) {
      return;
    }
    if (windows && state.pos < lastPos() && !stepAt(state.pos + 1)) {
      // The next window is still on its way: wait for it on this step.
      windows.want(state.pos + 1, true);
    } else if (state.pos < lastPos()) {
      select(state.pos + 1);
    } else if (!state.live) {
      setPlaying(false);
      return;
    }
    // Live and at the newest step: wait for the next one.
    playback.timer = window.setTimeout(tick, BASE_STEP_MS / playback.speed);
  }

  function setSpeed(value) {
    var speed = parseFloat(value);
    if (!isNum(speed) || speed <= 0) {
      speed = 1;
    }
    playback.speed = speed;
    try {
      window.localStorage.setItem(SPEED_KEY, String(speed));
    } catch (err) {
      // Storage may be unavailable (private mode); the choice just isn't kept.
    }
    if (playback.playing) {
      setPlaying(true); // restart the timer at the new pace
    }
  }

  function restoreSpeed() {
    var saved = null;
    try {
      saved = window.localStorage.getItem(SPEED_KEY);
    } catch (err) {
      saved = null;
    }
    var value = saved !== null && SPEEDS.indexOf(saved) >= 0 ? saved : ui.speed.value || "1";
    ui.speed.value = value;
    playback.speed = parseFloat(value) || 1;
  }

  /* ------------------------------------------------------------ events */

  function bindEvents() {
    ui.scrubber.addEventListener("input", function () {
      select(parseInt(ui.scrubber.value, 10) || 0);
    });
    ui.play.addEventListener("click", togglePlay);
    ui.first.addEventListener("click", function () {
      select(0);
    });
    ui.prev.addEventListener("click", function () {
      select(state.pos - 1);
    });
    ui.next.addEventListener("click", function () {
      select(state.pos + 1);
    });
    ui.last.addEventListener("click", function () {
      select(lastPos());
    });
    ui.speed.addEventListener("change", function () {
      setSpeed(ui.speed.value);
    });
    ui.jumpLive.addEventListener("click", function () {
      state.following = true;
      select(state.lastPos(), { auto: true });
    });
    ui.marks.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest(".mark") : null;
      if (mark && mark.hasAttribute("data-pos")) {
        select(parseInt(mark.getAttribute("data-pos"), 10));
      }
    });
    view.bindKeys(ui.scrubber, {
      togglePlay: togglePlay,
      move: function (direction) {
        if (state.pos >= 0) {
          select(state.pos + direction);
        }
      },
      jumpToEvent: function (direction) {
        var pos = windows ? windows.eventFrom(state.pos, direction) : state.eventPositionFrom(state.pos, direction);
        if (pos >= 0) {
          select(pos);
        }
      },
      first: function () {
        if (lastPos() >= 0) {
          select(0);
        }
      },
      last: function () {
        if (lastPos() >= 0) {
          select(lastPos());
        }
      },
    });
  }

  /* ------------------------------------------------------------ loading */

  function setMode(mode) {
    state.live = mode === "live";
    root.setAttribute("data-mode", mode);
    if (!state.live) {
      state.following = true;
    }
    updateChrome();
  }

  function fetchMissingSteps(progress) {
    return Arena.transport.fetchSteps(episode.steps_url, state.heldThrough(), function (results, total) {
      addSteps(results);
      if (progress && total !== null) {
        progress(state.steps.length, total);
      }
    });
  }

  function loadReplay() {
    state.loading = true;
    setMode("replay");
    setMessage("Loading steps…");
    return fetchMissingSteps(function (have, total) {
      setMessage("Loading steps… " + have + " / " + total);
    })
      .then(function () {
        state.loading = false;
        setMessage("");
        applyRequested(true);
        updateChrome();
        markReady();
      })
      .catch(function (err) {
        state.loading = false;
        updateChrome();
        view.showLoadError(ui.message, root, err, loadReplay);
      });
  }

  /*
   * A long ended episode: the window of the deep-linked step (or the first)
   * is fetched first, then the marks for the scrubber; ready once both are in.
   */
  function loadWindows() {
    setMode("replay");
    windows = new Arena.StepWindows(episode, windowArrived);
    var wanted = state.requested !== null ? state.requested : 0;
    state.requested = null;
    setMessage("Loading steps…");
    afterLengthKnown();
    select(wanted, { auto: true, now: true });
    loadMarks();
  }

  function loadMarks() {
    windows
      .loadMarks()
      .then(function () {
        marksLoaded = true;
        afterLengthKnown();
        select(state.pos, { auto: true, now: true }); // clamped to the episode's true length
        shownIndex = null; // drawn again: its cumulative reward is known now
        renderStep();
        settleWindows();
      })
      .catch(function (err) {
        view.showLoadError(ui.message, root, err, loadMarks);
      });
  }

  function afterLengthKnown() {
    var last = lastPos();
    ui.scrubber.max = String(Math.max(0, last));
    ui.scrubber.disabled = last < 0;
    ui.play.disabled = last < 0;
    queueMarks();
    updateChrome();
  }

  /* The steps first…last arrived (or, with `err`, could not be fetched). */
  function windowArrived(first, last, err) {
    if (err) {
      if (state.pos >= first && state.pos <= last) {
        view.showLoadError(ui.message, root, err, function () {
          select(state.pos, { auto: true, now: true });
        });
      }
      return;
    }
    if (state.pos >= first && state.pos <= last) {
      renderStep();
      updateChrome();
    } else {
      root.setAttribute("data-steps-held", String(windows.heldCount()));
    }
    settleWindows();
  }

  /* Ready once the marks and the step shown are in. */
  function settleWindows() {
    if (marksLoaded && windows.holds(state.pos)) {
      setMessage("");
      markReady();
    }
  }

  /* The episode ended while we watched: switch to replay. */
  function finishLive(endEpisode) {
    if (state.ended) {
      return;
    }
    state.end(endEpisode);
    if (feed) {
      feed.stop();
    }
    var wasFollowing = state.following;
    setMode("replay");
    view.updateHeader(episode, root);
    setMessage("");

    var complete = function () {
      applyRequested(true);
      if (wasFollowing && state.steps.length > 0) {
        select(state.lastPos(), { auto: true });
      }
      updateChrome();
      markReady();
    };
    // Fill any gap (a dropped message) from the API before settling.
    if (isNum(episode.num_steps) && state.steps.length < episode.num_steps && episode.steps_url) {
      fetchMissingSteps(null).then(complete, complete);
    } else {
      complete();
    }
  }

  function connectLive() {
    setMode("live");
    feed = new Arena.transport.LiveFeed(episode, state, {
      steps: addSteps,
      ready: markReady,
      end: finishLive,
      status: function (status) {
        episode.status = status;
        view.updateHeader(episode, root);
      },
      message: setMessage,
    });
    feed.start();
  }

  /* ------------------------------------------------------------ API */

  window.ArenaPlayer = {
    currentIndex: function () {
      return state.pos >= 0 && lastPos() >= 0 ? indexAt(state.pos) : -1;
    },
    stepCount: function () {
      return windows ? windows.count : state.steps.length;
    },
    isLive: function () {
      return state.live;
    },
    isPlaying: function () {
      return playback.playing;
    },
    goTo: function (index) {
      if (windows) {
        select(index);
      } else if (state.steps.length > 0) {
        select(state.positionForIndex(index));
      }
    },
  };

  /* ------------------------------------------------------------ start */

  bindEvents();
  restoreSpeed();
  view.updateHeader(episode, root);
  state.requested = readRequestedStep();
  if (state.requested !== null) {
    state.following = false;
  }
  setPlaying(false);
  if (state.isTerminal() && isNum(episode.num_steps) && episode.num_steps > FULL_LOAD_MAX_STEPS && episode.steps_url) {
    loadWindows();
  } else if (state.isTerminal()) {
    loadReplay();
  } else {
    connectLive();
  }
})();
