/*
 * The generic episode player: replay of a stored episode, or live view of a
 * running one (websocket, with a polling fallback).
 *
 * Input: the JSON in <script type="application/json" id="episode-data">
 * (episode fields, `steps_url`, `ws_path`) and the markup of
 * templates/leaderboard/_player.html. Observations are drawn by
 * window.ArenaRenderers (renderers.js, loaded first).
 *
 * All step content is untrusted model/game output: it only ever reaches the
 * page through textContent, attribute values and same-origin image URLs.
 */
(function () {
  "use strict";

  var BASE_STEP_MS = 1000; // 1× = one step per second
  var POLL_MS = 2000;
  var PAGE_SIZE = 500;
  var URL_DEBOUNCE_MS = 200;
  var SPEEDS = ["0.5", "1", "2", "4", "8"];
  var SPEED_KEY = "arena.player.speed";

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
    observation: byId("observation"),
    promptAdded: byId("prompt-added"),
    completion: byId("completion"),
    reasoningPanel: byId("reasoning-panel"),
    reasoning: byId("reasoning"),
    factStep: byId("fact-step"),
    parsed: byId("parsed-action"),
    executed: byId("executed-action"),
    legal: byId("legal-badge"),
    reward: byId("fact-reward"),
    cumulative: byId("fact-cumulative"),
    tokens: byId("fact-tokens"),
    latency: byId("fact-latency"),
    time: byId("fact-time"),
    errorBox: byId("step-error"),
    errorText: byId("step-error-text"),
  };

  var state = {
    steps: [], // sorted by step.index
    known: new Set(), // indices already held
    cumulative: [], // cumulative reward up to and including position i
    pos: -1, // selected position in `steps`
    shownIndex: null, // step.index whose panels are drawn
    live: false,
    following: true, // live: keep the newest step selected
    ended: false,
    playing: false,
    timer: null,
    speed: 1,
    requested: null, // ?step=N not yet applied
    loading: false, // replay steps being fetched
    polling: false,
    pollTimer: null,
    urlTimer: null,
    marksQueued: false,
  };

  /* ------------------------------------------------------------ helpers */

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

  function fmtNumber(x) {
    if (!isNum(x)) {
      return "—";
    }
    if (Number.isInteger(x)) {
      return String(x);
    }
    var rounded = Math.round(x * 1000) / 1000;
    return rounded === 0 && x !== 0 ? x.toExponential(2) : String(rounded);
  }

  function fmtLatency(ms) {
    if (!isNum(ms)) {
      return "—";
    }
    if (ms < 1000) {
      return Math.round(ms) + " ms";
    }
    return (ms / 1000).toFixed(2) + " s";
  }

  function fmtTime(iso) {
    if (typeof iso !== "string" || iso === "") {
      return "—";
    }
    var d = new Date(iso);
    if (isNaN(d.getTime())) {
      return iso;
    }
    return d.toLocaleString();
  }

  function isTerminal(status) {
    return status === "finished" || status === "failed";
  }

  function isBaseline() {
    return Boolean(episode.submission && episode.submission.is_baseline);
  }

  function setMessage(text) {
    setText(ui.message, text || "");
  }

  /* Keep only path + query of an API URL so links work behind TLS proxies. */
  function sameOriginPath(url) {
    try {
      var parsed = new URL(url, window.location.href);
      if (parsed.origin !== window.location.origin) {
        return null;
      }
      return parsed.pathname + parsed.search;
    } catch (err) {
      return null;
    }
  }

  function getJson(url) {
    return fetch(url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    }).then(function (res) {
      if (!res.ok) {
        var error = new Error("HTTP " + res.status);
        error.status = res.status;
        throw error;
      }
      return res.json();
    });
  }

  /* ------------------------------------------------------------ steps */

  function eventsOf(step) {
    var events = [];
    if (step.error) {
      events.push("error");
    }
    if (step.legal === false) {
      events.push("illegal");
    }
    if (isNum(step.reward) && step.reward !== 0) {
      events.push("reward");
    }
    return events;
  }

  function recomputeCumulative(from) {
    var total = from > 0 ? state.cumulative[from - 1] : 0;
    for (var i = from; i < state.steps.length; i++) {
      var r = state.steps[i].reward;
      total += isNum(r) ? r : 0;
      state.cumulative[i] = total;
    }
    state.cumulative.length = state.steps.length;
  }

  /* Merge new steps; returns how many were added. */
  function addSteps(list) {
    if (!Array.isArray(list) || list.length === 0) {
      return 0;
    }
    var added = 0;
    var firstChanged = state.steps.length;
    for (var k = 0; k < list.length; k++) {
      var step = list[k];
      if (!step || typeof step !== "object" || !Number.isInteger(step.index) || step.index < 0) {
        continue;
      }
      if (state.known.has(step.index)) {
        continue;
      }
      state.known.add(step.index);
      var n = state.steps.length;
      if (n === 0 || state.steps[n - 1].index < step.index) {
        state.steps.push(step);
      } else {
        // Out of order (polling after a websocket drop): insert in place.
        var at = 0;
        while (at < n && state.steps[at].index < step.index) {
          at++;
        }
        state.steps.splice(at, 0, step);
        firstChanged = Math.min(firstChanged, at);
        if (at <= state.pos) {
          state.pos += 1;
        }
      }
      added++;
    }
    if (added === 0) {
      return 0;
    }
    recomputeCumulative(firstChanged);
    if (state.live && !state.ended) {
      // The episode row's counters only settle at the end; count what we have.
      episode.num_steps = state.steps.length;
      episode.illegal_steps = state.steps.filter(function (s) {
        return s.legal === false;
      }).length;
      updateHeader();
    }
    afterStepsChanged();
    return added;
  }

  function lastPos() {
    return state.steps.length - 1;
  }

  /* Position of the first step with index >= wanted (clamped to the last). */
  function positionForIndex(wanted) {
    var steps = state.steps;
    if (steps.length === 0) {
      return -1;
    }
    var lo = 0;
    var hi = steps.length - 1;
    if (wanted >= steps[hi].index) {
      return hi;
    }
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (steps[mid].index < wanted) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
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
    var haveIt = state.steps[lastPos()].index >= wanted;
    if (!haveIt && !force) {
      return;
    }
    state.requested = null;
    var pos = positionForIndex(wanted);
    // A deep-linked step stays put in live mode, even if it is the newest
    // one so far (the catch-up may still be streaming); "Jump to live" resumes.
    state.following = !state.live;
    select(pos, { auto: true });
  }

  /* ------------------------------------------------------------ marks */

  function queueMarks() {
    if (state.marksQueued) {
      return;
    }
    state.marksQueued = true;
    var run = function () {
      state.marksQueued = false;
      drawMarks();
    };
    if (window.requestAnimationFrame && !document.hidden) {
      window.requestAnimationFrame(run);
    } else {
      window.setTimeout(run, 0);
    }
  }

  function drawMarks() {
    clear(ui.marks);
    var last = lastPos();
    for (var i = 0; i <= last; i++) {
      var step = state.steps[i];
      var events = eventsOf(step);
      if (events.length === 0) {
        continue;
      }
      var mark = el("span", "mark mark-" + events[0]);
      if (events.length > 1) {
        mark.classList.add("mark-multi");
      }
      mark.style.left = (last > 0 ? (i / last) * 100 : 0) + "%";
      mark.setAttribute("data-pos", String(i));
      mark.setAttribute("data-step", String(step.index));
      mark.title = "Step " + step.index + ": " + events.join(", ");
      ui.marks.appendChild(mark);
    }
    highlightMark();
  }

  function highlightMark() {
    var current = ui.marks.querySelector(".mark.is-current");
    if (current) {
      current.classList.remove("is-current");
    }
    if (state.pos >= 0) {
      var mark = ui.marks.querySelector('.mark[data-pos="' + state.pos + '"]');
      if (mark) {
        mark.classList.add("is-current");
      }
    }
  }

  function eventPositionFrom(pos, direction) {
    for (var i = pos + direction; i >= 0 && i <= lastPos(); i += direction) {
      if (eventsOf(state.steps[i]).length > 0) {
        return i;
      }
    }
    return -1;
  }

  /* ------------------------------------------------------------ selection */

  /*
   * Select the step at a position. `opts.auto` marks a move the player made
   * by itself (live follow, deep link); a user move decides whether the live
   * view keeps following the newest step.
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
    renderStep();
    updateChrome();
    scheduleUrlUpdate();
  }

  function currentStep() {
    return state.pos >= 0 ? state.steps[state.pos] : null;
  }

  /* Everything that depends on position/count but not on the step's content. */
  function updateChrome() {
    var last = lastPos();
    var step = currentStep();
    var hasSteps = last >= 0;

    if (step) {
      ui.scrubber.value = String(state.pos);
      ui.scrubber.setAttribute("aria-valuetext", "Step " + step.index + " of " + state.steps[last].index);
      setText(ui.stepLabel, "Step " + step.index + " / " + state.steps[last].index);
      root.setAttribute("data-current-step", String(step.index));
    } else {
      setText(ui.stepLabel, "Step – / –");
      root.removeAttribute("data-current-step");
    }
    root.setAttribute("data-step-count", String(state.steps.length));

    ui.first.disabled = !hasSteps || state.pos <= 0;
    ui.prev.disabled = !hasSteps || state.pos <= 0;
    ui.next.disabled = !hasSteps || state.pos >= last;
    ui.last.disabled = !hasSteps || state.pos >= last;
    ui.jumpLive.hidden = !(state.live && hasSteps && !state.following);
    if (ui.liveBadge) {
      ui.liveBadge.hidden = !state.live;
    }
    highlightMark();
    updateEndReason();

    if (!hasSteps) {
      showEmptyState();
    }
  }

  function showEmptyState() {
    state.shownIndex = null;
    clear(ui.observation);
    var text;
    if (state.loading) {
      text = "Loading steps…";
    } else if (state.live) {
      text = "Waiting for the first step…";
    } else if (state.ended || isTerminal(episode.status)) {
      text = "This episode has no recorded steps.";
    } else {
      text = "Loading…";
    }
    ui.observation.appendChild(el("p", "muted obs-empty", text));
    clear(ui.promptAdded);
    setText(ui.completion, "");
    ui.reasoningPanel.hidden = true;
    ui.errorBox.hidden = true;
    [ui.factStep, ui.parsed, ui.executed, ui.reward, ui.cumulative, ui.tokens, ui.latency, ui.time].forEach(function (node) {
      setText(node, "");
    });
    setText(ui.legal, "");
    ui.legal.className = "badge";
  }

  function updateEndReason() {
    var box = ui.endReason;
    if (!box) {
      return;
    }
    var ended = state.ended || isTerminal(episode.status);
    var last = lastPos();
    var onLast = last >= 0 && state.pos === last;
    var show = ended && (onLast || last < 0);
    if (!show) {
      box.hidden = true;
      clear(box);
      return;
    }
    var step = currentStep();
    var failed = episode.status === "failed";
    var reason = (step && step.end_reason) || episode.end_reason || "";
    clear(box);
    box.classList.toggle("is-failed", failed);
    var heading = el("strong", null, failed ? "Episode failed" : "Episode ended");
    box.appendChild(heading);
    var detail = failed ? episode.error || reason || "no reason recorded" : reason || "no reason recorded";
    box.appendChild(document.createTextNode(": " + detail));
    if (failed && reason && episode.error && reason !== episode.error) {
      box.appendChild(el("span", "muted end-reason-extra", " (" + reason + ")"));
    }
    // Steps show what the agent saw before acting; the state after the last action
    // comes with the episode.
    var final = episode.final_observation;
    if (final && window.ArenaRenderers) {
      var finalBox = el("div", "final-observation");
      finalBox.appendChild(el("div", "muted final-observation-label", "Final state"));
      var target = el("div", "observation");
      finalBox.appendChild(target);
      box.appendChild(finalBox);
      window.ArenaRenderers.render(target, final, episode, { position: state.pos, steps: state.steps, final: true });
    }
    box.hidden = false;
  }

  /* Draw the panels of the selected step (only when the step changes). */
  function renderStep() {
    var step = currentStep();
    if (!step) {
      return;
    }
    if (state.shownIndex === step.index) {
      return;
    }
    state.shownIndex = step.index;

    // Observation.
    var previous = state.pos > 0 ? state.steps[state.pos - 1] : null;
    if (window.ArenaRenderers) {
      window.ArenaRenderers.render(ui.observation, step, episode, {
        position: state.pos,
        steps: state.steps,
        previous: previous,
      });
    } else {
      clear(ui.observation);
      ui.observation.appendChild(el("pre", "obs-text", step.observation_text || ""));
    }

    renderPromptAdded(step);

    // Completion and reasoning.
    ui.completion.classList.remove("is-empty");
    if (typeof step.completion === "string" && step.completion !== "") {
      setText(ui.completion, step.completion);
    } else {
      ui.completion.classList.add("is-empty");
      setText(ui.completion, isBaseline() ? "(baseline policy — no model completion)" : "(empty completion)");
    }
    var reasoning = typeof step.reasoning === "string" ? step.reasoning : "";
    ui.reasoningPanel.hidden = reasoning === "";
    setText(ui.reasoning, reasoning);

    // Facts.
    setText(ui.factStep, step.index);
    var parsed = step.parsed_action;
    var parsedMissing = parsed === null || parsed === undefined || parsed === "";
    ui.parsed.classList.toggle("is-missing", parsedMissing);
    if (parsedMissing) {
      setText(ui.parsed, isBaseline() && !step.completion ? "— (baseline policy)" : "— could not parse");
    } else {
      setText(ui.parsed, parsed);
    }
    var executed = step.executed_action;
    setText(ui.executed, executed === null || executed === undefined || executed === "" ? "—" : executed);

    var illegal = step.legal === false;
    ui.legal.className = "badge " + (illegal ? "badge-illegal" : "badge-legal");
    setText(ui.legal, illegal ? "illegal → replaced" : "legal");
    root.setAttribute("data-current-legal", illegal ? "0" : "1");

    setText(ui.reward, fmtNumber(step.reward));
    ui.reward.classList.toggle("is-positive", isNum(step.reward) && step.reward > 0);
    ui.reward.classList.toggle("is-negative", isNum(step.reward) && step.reward < 0);
    setText(ui.cumulative, fmtNumber(state.cumulative[state.pos]));
    var tin = isNum(step.tokens_in) ? step.tokens_in : null;
    var tout = isNum(step.tokens_out) ? step.tokens_out : null;
    setText(ui.tokens, tin === null && tout === null ? "—" : fmtNumber(tin) + " / " + fmtNumber(tout));
    setText(ui.latency, fmtLatency(step.latency_ms));
    setText(ui.time, fmtTime(step.created_at));

    var error = typeof step.error === "string" ? step.error : "";
    ui.errorBox.hidden = error === "";
    setText(ui.errorText, error);
  }

  function renderPromptAdded(step) {
    var box = ui.promptAdded;
    clear(box);
    var parts = Array.isArray(step.prompt_added) ? step.prompt_added : [];
    if (parts.length === 0) {
      box.appendChild(
        el("p", "muted", isBaseline() ? "(baseline policy — no prompt)" : "(nothing new in the prompt this step)")
      );
      return;
    }
    parts.forEach(function (part, i) {
      var wrapper = el("div", "prompt-part");
      if (part && part.type === "text") {
        wrapper.appendChild(el("pre", "mono-block", typeof part.text === "string" ? part.text : ""));
      } else if (part && part.type === "image") {
        var alt = "Image " + (i + 1) + " added to the prompt at step " + step.index;
        if (window.ArenaRenderers && window.ArenaRenderers.imageElement) {
          wrapper.appendChild(window.ArenaRenderers.imageElement(part.url, alt, { className: "prompt-image", targetWidth: 240 }));
        } else {
          wrapper.appendChild(el("p", "muted", "(image)"));
        }
      } else {
        // Unknown part kind: show it as data, never as markup.
        wrapper.appendChild(el("pre", "mono-block", JSON.stringify(part, null, 2)));
      }
      var label = part && (part.section || part.role);
      if (typeof label === "string" && label !== "") {
        wrapper.insertBefore(el("div", "prompt-role muted", label), wrapper.firstChild);
      }
      box.appendChild(wrapper);
    });
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
    if (state.urlTimer !== null) {
      return;
    }
    state.urlTimer = window.setTimeout(function () {
      state.urlTimer = null;
      updateUrl();
    }, URL_DEBOUNCE_MS);
  }

  function updateUrl() {
    if (!window.history || !window.history.replaceState) {
      return;
    }
    var step = currentStep();
    var url = new URL(window.location.href);
    if (!step || (state.live && state.following)) {
      url.searchParams.delete("step");
    } else {
      url.searchParams.set("step", String(step.index));
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

  function stepDelay() {
    return BASE_STEP_MS / state.speed;
  }

  function setPlaying(playing) {
    state.playing = playing;
    setText(ui.play, playing ? "‖ Pause" : "▶ Play");
    ui.play.setAttribute("aria-pressed", playing ? "true" : "false");
    root.setAttribute("data-playing", playing ? "1" : "0");
    if (state.timer !== null) {
      window.clearTimeout(state.timer);
      state.timer = null;
    }
    if (playing) {
      state.timer = window.setTimeout(tick, stepDelay());
    }
  }

  function play() {
    if (state.steps.length === 0) {
      return;
    }
    // Replaying from the end starts over, as a video player does.
    if (!state.live && state.pos >= lastPos()) {
      select(0);
    }
    setPlaying(true);
  }

  function pause() {
    setPlaying(false);
  }

  function togglePlay() {
    if (state.playing) {
      pause();
    } else {
      play();
    }
  }

  function tick() {
    state.timer = null;
    if (!state.playing) {
      return;
    }
    if (state.pos < lastPos()) {
      select(state.pos + 1);
    } else if (!state.live) {
      pause();
      return;
    }
    // Live and at the newest step: wait for the next one.
    state.timer = window.setTimeout(tick, stepDelay());
  }

  function setSpeed(value) {
    var speed = parseFloat(value);
    if (!isNum(speed) || speed <= 0) {
      speed = 1;
    }
    state.speed = speed;
    try {
      window.localStorage.setItem(SPEED_KEY, String(speed));
    } catch (err) {
      // Storage may be unavailable (private mode); the choice just isn't kept.
    }
    if (state.playing) {
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
    state.speed = parseFloat(value) || 1;
  }

  /* ------------------------------------------------------------ events */

  function isTypingTarget(target) {
    if (!target || target === document.body) {
      return false;
    }
    if (target.isContentEditable) {
      return true;
    }
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && target !== ui.scrubber);
  }

  function onKeyDown(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var target = event.target;
    if (isTypingTarget(target)) {
      return;
    }
    var onScrubber = target === ui.scrubber;
    var onButton = target && (target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY");
    var key = event.key;
    var handled = true;

    if (key === " " || key === "Spacebar") {
      if (onButton) {
        return; // the focused button gets its own click
      }
      togglePlay();
    } else if (key === "ArrowLeft" || key === "ArrowRight") {
      if (onScrubber && !event.shiftKey) {
        return; // the range input moves itself and fires "input"
      }
      var dir = key === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey) {
        var target2 = eventPositionFrom(state.pos, dir);
        if (target2 >= 0) {
          select(target2);
        }
      } else if (state.pos >= 0) {
        select(state.pos + dir);
      }
    } else if (key === "Home" || key === "End") {
      if (onScrubber) {
        return;
      }
      if (state.steps.length > 0) {
        select(key === "Home" ? 0 : lastPos());
      }
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
    }
  }

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
      select(lastPos(), { auto: true });
    });
    ui.marks.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest(".mark") : null;
      if (mark && mark.hasAttribute("data-pos")) {
        select(parseInt(mark.getAttribute("data-pos"), 10));
      }
    });
    document.addEventListener("keydown", onKeyDown);
  }

  /* ------------------------------------------------------------ header */

  function updateHeader() {
    var fields = document.querySelectorAll("[data-episode-field]");
    Array.prototype.forEach.call(fields, function (node) {
      var name = node.getAttribute("data-episode-field");
      if (!Object.prototype.hasOwnProperty.call(episode, name)) {
        return;
      }
      var value = episode[name];
      if (name === "status") {
        Array.prototype.slice.call(node.classList).forEach(function (cls) {
          if ((cls.indexOf("badge-") === 0 && cls !== "badge-live") || cls.indexOf("status-") === 0) {
            node.classList.remove(cls);
          }
        });
        if (typeof value === "string" && /^[a-z_-]+$/.test(value)) {
          node.classList.add("badge-" + value);
        }
        setText(node, value);
      } else if (typeof value === "number") {
        setText(node, fmtNumber(value));
      } else if (value === null || value === undefined || value === "") {
        setText(node, "—");
      } else {
        setText(node, value);
      }
    });
    root.setAttribute("data-status", String(episode.status || ""));
  }

  /* ------------------------------------------------------------ loading */

  function markReady() {
    root.setAttribute("data-ready", "1");
  }

  function setMode(mode) {
    state.live = mode === "live";
    root.setAttribute("data-mode", mode);
    if (!state.live) {
      state.following = true;
    }
    updateChrome();
  }

  function stepsPageUrl(page) {
    var url = new URL(episode.steps_url, window.location.href);
    url.searchParams.set("page_size", String(PAGE_SIZE));
    if (page > 1) {
      url.searchParams.set("page", String(page));
    } else {
      url.searchParams.delete("page");
    }
    return url.pathname + url.search;
  }

  /*
   * Fetch steps from the API, starting at the page that holds the first step
   * we don't have yet, and follow `next` links. Resolves when done.
   */
  function fetchSteps(progress) {
    var startPage = Math.floor(state.steps.length / PAGE_SIZE) + 1;
    var firstUrl = stepsPageUrl(startPage);

    function fetchPage(url, isFirst) {
      return getJson(url)
        .then(function (data) {
          addSteps(data && data.results);
          if (progress && data && isNum(data.count)) {
            progress(state.steps.length, data.count);
          }
          var next = data && data.next ? sameOriginPath(data.next) : null;
          return next ? fetchPage(next, false) : null;
        })
        .catch(function (err) {
          // Asking for the page after the last full one gives 404: nothing new.
          if (isFirst && startPage > 1 && err && err.status === 404) {
            return null;
          }
          throw err;
        });
    }
    return fetchPage(firstUrl, true);
  }

  function episodeApiUrl() {
    if (typeof episode.api_url === "string" && episode.api_url) {
      return episode.api_url;
    }
    if (typeof episode.steps_url === "string") {
      var m = episode.steps_url.match(/^(.*\/)steps\/?(\?.*)?$/);
      if (m) {
        return m[1];
      }
    }
    return null;
  }

  function loadReplay() {
    state.loading = true;
    setMode("replay");
    setMessage("Loading steps…");
    return fetchSteps(function (have, total) {
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
        showLoadError(err, loadReplay);
      });
  }

  function showLoadError(err, retry) {
    clear(ui.message);
    ui.message.appendChild(document.createTextNode("Could not load steps (" + (err && err.message ? err.message : "network error") + "). "));
    var button = el("button", "link-button", "Retry");
    button.type = "button";
    button.addEventListener("click", function () {
      setMessage("");
      root.removeAttribute("data-error");
      retry();
    });
    ui.message.appendChild(button);
    root.setAttribute("data-error", "load");
  }

  /* The episode finished while we watched: switch to replay. */
  function finishLive(endEpisode) {
    if (state.ended) {
      return;
    }
    state.ended = true;
    if (endEpisode && typeof endEpisode === "object") {
      Object.keys(endEpisode).forEach(function (key) {
        episode[key] = endEpisode[key];
      });
    }
    if (!isTerminal(episode.status)) {
      episode.status = "finished";
    }
    stopPolling();
    var wasFollowing = state.following;
    setMode("replay");
    updateHeader();
    setMessage("");

    var complete = function () {
      applyRequested(true);
      if (wasFollowing && state.steps.length > 0) {
        select(lastPos(), { auto: true });
      }
      updateChrome();
      markReady();
    };
    // Fill any gap (a dropped message) from the API before settling.
    if (isNum(episode.num_steps) && state.steps.length < episode.num_steps && episode.steps_url) {
      fetchSteps(null).then(complete, complete);
    } else {
      complete();
    }
  }

  function connectLive() {
    setMode("live");
    if (!episode.ws_path || typeof window.WebSocket !== "function") {
      startPolling();
      return;
    }
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket;
    try {
      socket = new window.WebSocket(scheme + window.location.host + episode.ws_path);
    } catch (err) {
      startPolling();
      return;
    }
    var gotEnd = false;
    socket.addEventListener("open", function () {
      markReady();
      setMessage("");
    });
    socket.addEventListener("message", function (event) {
      var msg;
      try {
        msg = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (!msg || typeof msg !== "object") {
        return;
      }
      if (msg.type === "step") {
        addSteps([msg.step]);
        markReady();
      } else if (msg.type === "end") {
        gotEnd = true;
        finishLive(msg.episode);
        try {
          socket.close();
        } catch (err) {
          // already closing
        }
      }
    });
    socket.addEventListener("close", function () {
      if (!gotEnd && !state.ended) {
        startPolling();
      }
    });
  }

  function startPolling() {
    if (state.polling || state.ended) {
      return;
    }
    state.polling = true;
    setMessage("Live connection unavailable — refreshing every 2 s.");
    pollOnce();
  }

  function stopPolling() {
    state.polling = false;
    if (state.pollTimer !== null) {
      window.clearTimeout(state.pollTimer);
      state.pollTimer = null;
    }
  }

  function pollOnce() {
    state.pollTimer = null;
    if (!state.polling || state.ended) {
      return;
    }
    var apiUrl = episodeApiUrl();
    fetchSteps(null)
      .then(function () {
        markReady();
        if (!apiUrl) {
          return null;
        }
        return getJson(apiUrl).catch(function () {
          return null;
        });
      })
      .then(function (fresh) {
        if (state.ended) {
          return;
        }
        var lastStep = state.steps.length ? state.steps[lastPos()] : null;
        if (fresh && isTerminal(fresh.status)) {
          finishLive(fresh);
          return;
        }
        if (!fresh && lastStep && lastStep.done) {
          finishLive({ status: "finished", end_reason: lastStep.end_reason || episode.end_reason || "" });
          return;
        }
        if (fresh && fresh.status && fresh.status !== episode.status) {
          episode.status = fresh.status;
          updateHeader();
        }
        setMessage("Live connection unavailable — refreshing every 2 s.");
        schedulePoll();
      })
      .catch(function (err) {
        setMessage("Could not refresh (" + (err && err.message ? err.message : "network error") + "); retrying…");
        schedulePoll();
      });
  }

  function schedulePoll() {
    if (state.polling && !state.ended) {
      state.pollTimer = window.setTimeout(pollOnce, POLL_MS);
    }
  }

  /* ------------------------------------------------------------ API */

  window.ArenaPlayer = {
    currentIndex: function () {
      var step = currentStep();
      return step ? step.index : -1;
    },
    stepCount: function () {
      return state.steps.length;
    },
    isLive: function () {
      return state.live;
    },
    isPlaying: function () {
      return state.playing;
    },
    goTo: function (index) {
      if (state.steps.length > 0) {
        select(positionForIndex(index));
      }
    },
  };

  /* ------------------------------------------------------------ start */

  bindEvents();
  restoreSpeed();
  updateHeader();
  state.requested = readRequestedStep();
  if (state.requested !== null) {
    state.following = false;
  }
  setPlaying(false);
  if (isTerminal(episode.status)) {
    state.ended = true;
    loadReplay();
  } else {
    connectLive();
  }
})();
