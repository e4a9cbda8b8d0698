/*
 * What the player draws, shared by the episode page and the compare page:
 * one step's panels (templates/leaderboard/_step_panels.html: observation via
 * window.ArenaRenderers, prompt added, completion, reasoning, parsed and
 * executed action, legality, reward…; drawn again whole when a list of steps
 * cut its long texts), why the episode ended, the marks on a scrubber, the
 * episode header, the playback keys and a load error with retry.
 *
 * All step content is untrusted model/game output: it only ever reaches the
 * page through textContent, attribute values and same-origin image URLs.
 */
(function () {
  "use strict";

  var el = window.Arena.el;
  var clear = window.Arena.clear;
  var setText = window.Arena.setText;
  var isNum = window.Arena.isNum;

  // Headings of the end-of-episode note for the statuses that need their own.
  var END_HEADINGS = { failed: "Episode failed", skipped: "Episode not played" };

  function fmtNumber(x) {
    if (!isNum(x)) {
      return "—";
    }
    if (Number.isInteger(x)) {
      return String(x);
    }
    return window.Arena.fmtScore(x);
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

  // A parsed action is one short command; when a model's whole answer lands there
  // (nothing in it parsed), the cell shows its start and says how long it is, so it
  // cannot push the other facts off screen. The whole answer is under Completion.
  var PARSED_SHOWN_CHARS = 120;

  function clippedAction(text) {
    if (text.length <= PARSED_SHOWN_CHARS) {
      return text;
    }
    return text.slice(0, PARSED_SHOWN_CHARS) + "… (" + text.length.toLocaleString("en") + " characters; the whole answer is under Completion)";
  }

  function isBaseline(episode) {
    return Boolean(episode.submission && episode.submission.is_baseline);
  }

  /* The panels of _step_panels.html included with this id prefix. */
  function stepPanels(prefix) {
    function byId(id) {
      return document.getElementById(prefix + id);
    }
    return {
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
      context: byId("fact-context"),
      shape: byId("fact-shape"),
      errorBox: byId("step-error"),
      errorText: byId("step-error-text"),
      cutNote: byId("step-cut"),
    };
  }

  function renderPromptAdded(box, step, episode) {
    clear(box);
    var parts = Array.isArray(step.prompt_added) ? step.prompt_added : [];
    if (parts.length === 0) {
      box.appendChild(
        el("p", "muted", isBaseline(episode) ? "(baseline policy — no prompt)" : "(nothing new in the prompt this step)")
      );
      return;
    }
    parts.forEach(function (part, i) {
      var wrapper = el("div", "prompt-part");
      if (part && part.type === "text") {
        wrapper.appendChild(el("pre", "mono-block", typeof part.text === "string" ? part.text : ""));
      } else if (part && part.type === "image") {
        var alt = "Image " + (i + 1) + " added to the prompt at step " + step.index;
        wrapper.appendChild(window.ArenaRenderers.imageElement(part.url, alt, { className: "prompt-image", targetWidth: 240 }));
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

  var CONTEXT_WHOLE = "whole prompt sent";

  /* What the prompt left out to fit the model's context window (step.info.context). */
  function contextNote(step) {
    var context = step.info && typeof step.info === "object" ? step.info.context : null;
    if (!context || !isNum(context.dropped) || context.dropped <= 0) {
      return CONTEXT_WHOLE;
    }
    var unit = context.unit === "turns" ? "turn" : "step";
    var plural = context.dropped === 1 ? "" : "s";
    var size = isNum(context.estimated_tokens) ? " (about " + fmtNumber(context.estimated_tokens) + " tokens sent)" : "";
    return "the " + context.dropped + " oldest " + unit + plural + " left out to fit" + size;
  }

  /* How the messages sent at this step differ from the protocol's (step.info.shape):
     the endpoint refused a system message or two messages of one role in a row. */
  function shapeNote(step) {
    var shape = step.info && typeof step.info === "object" ? step.info.shape : null;
    if (!shape || typeof shape !== "object") {
      return "as built";
    }
    var notes = [];
    if (shape.system_folded) {
      notes.push("system text sent at the start of the first user message");
    }
    if (isNum(shape.merged) && shape.merged > 0) {
      notes.push(shape.merged + " pair" + (shape.merged === 1 ? "" : "s") + " of consecutive messages of one role sent merged");
    }
    return notes.length ? notes.join("; ") : "as built";
  }

  /*
   * Draw one step into its panels. `context` is what renderers get
   * ({position, steps, previous}) plus `cumulative`, the reward so far.
   */
  function renderStep(ui, step, episode, context) {
    window.ArenaRenderers.render(ui.observation, step, episode, context);
    renderPromptAdded(ui.promptAdded, step, episode);

    // Completion and reasoning.
    ui.completion.classList.remove("is-empty");
    if (typeof step.completion === "string" && step.completion !== "") {
      setText(ui.completion, step.completion);
    } else {
      ui.completion.classList.add("is-empty");
      setText(ui.completion, isBaseline(episode) ? "(baseline policy — no model completion)" : "(empty completion)");
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
      setText(ui.parsed, isBaseline(episode) && !step.completion ? "— (baseline policy)" : "— could not parse");
    } else {
      setText(ui.parsed, clippedAction(String(parsed)));
    }
    var executed = step.executed_action;
    setText(ui.executed, executed === null || executed === undefined || executed === "" ? "—" : executed);

    // An answer the token limit cut off is counted apart from illegal actions (the
    // episode's and run's tallies, the scrubber's marks); its badge says which it was.
    var illegal = step.legal === false;
    var cutOff = illegal && step.cut_off === true;
    ui.legal.className = "badge " + (cutOff ? "badge-cut-off" : illegal ? "badge-illegal" : "badge-legal");
    setText(ui.legal, cutOff ? "answer cut off → replaced" : illegal ? "illegal → replaced" : "legal");

    setText(ui.reward, fmtNumber(step.reward));
    ui.reward.classList.toggle("is-positive", isNum(step.reward) && step.reward > 0);
    ui.reward.classList.toggle("is-negative", isNum(step.reward) && step.reward < 0);
    setText(ui.cumulative, fmtNumber(context.cumulative));
    var tin = isNum(step.tokens_in) ? step.tokens_in : null;
    var tout = isNum(step.tokens_out) ? step.tokens_out : null;
    setText(ui.tokens, tin === null && tout === null ? "—" : fmtNumber(tin) + " / " + fmtNumber(tout));
    setText(ui.latency, fmtLatency(step.latency_ms));
    setText(ui.time, fmtTime(step.created_at));
    if (ui.shape) {
      setText(ui.shape, shapeNote(step));
    }
    if (ui.context) {
      setText(ui.context, contextNote(step));
      ui.context.classList.toggle("is-trimmed", contextNote(step) !== CONTEXT_WHOLE);
    }

    var error = typeof step.error === "string" ? step.error : "";
    ui.errorBox.hidden = error === "";
    setText(ui.errorText, error);
  }

  /*
   * The note over a step's panels while its long texts are cut: "loading"
   * while the whole step is fetched, "failed" with the error and a link to
   * the whole step, null (hidden) once the step is drawn whole.
   */
  function showCut(ui, cutState, step, err) {
    var note = ui.cutNote;
    if (!note) {
      return;
    }
    clear(note);
    note.hidden = !cutState;
    note.setAttribute("data-state", cutState || "whole");
    if (cutState === "loading") {
      setText(note, "Long texts of this step are cut here; loading them whole…");
    } else if (cutState === "failed") {
      var reason = err && err.message ? err.message : "network error";
      note.appendChild(
        document.createTextNode("Long texts of this step are cut here: the whole step could not be loaded (" + reason + "). ")
      );
      var url = window.Arena.transport.sameOriginPath(step.full_url);
      if (url) {
        var link = el("a", null, "Open the whole step");
        link.href = url;
        note.appendChild(link);
      }
    }
  }

  /*
   * Draw a step with draw(step); when its long texts came cut (lists of steps
   * cut them), fetch it whole through `fullSteps` (Arena.transport.FullSteps)
   * and draw it again — if stillShown() says it is still the one on screen.
   */
  function renderStepWhole(ui, step, fullSteps, stillShown, draw) {
    draw(step);
    if (!fullSteps.isCut(step)) {
      showCut(ui, null);
      return;
    }
    showCut(ui, "loading", step);
    fullSteps.get(step).then(
      function (whole) {
        if (stillShown()) {
          draw(whole);
          showCut(ui, null);
        }
      },
      function (err) {
        if (stillShown()) {
          showCut(ui, "failed", step, err);
        }
      }
    );
  }

  /* No step to draw: a note in the observation panel, every other panel blank. */
  function renderNoStep(ui, note) {
    clear(ui.observation);
    ui.observation.removeAttribute("data-renderer");
    ui.observation.appendChild(el("p", "muted obs-empty", note));
    showCut(ui, null);
    clear(ui.promptAdded);
    setText(ui.completion, "");
    ui.reasoningPanel.hidden = true;
    ui.errorBox.hidden = true;
    [ui.factStep, ui.parsed, ui.executed, ui.reward, ui.cumulative, ui.tokens, ui.latency, ui.time, ui.context, ui.shape].forEach(function (node) {
      setText(node, "");
    });
    setText(ui.legal, "");
    ui.legal.className = "badge";
  }

  /*
   * Why the episode ended, into `box`: the heading for its status, the reason
   * (the last step's, else the episode's), and the final state after the last
   * action — steps show what the agent saw before acting, the final state
   * comes with the episode. `context` is passed on to the renderer.
   */
  function renderEnd(box, episode, lastStep, context) {
    var failed = episode.status === "failed";
    var reason = (lastStep && lastStep.end_reason) || episode.end_reason || "";
    clear(box);
    box.classList.toggle("is-failed", failed);
    box.setAttribute("data-status", String(episode.status || ""));
    box.appendChild(el("strong", null, END_HEADINGS[episode.status] || "Episode ended"));
    var detail = failed ? episode.error || reason || "no reason recorded" : reason || "no reason recorded";
    box.appendChild(document.createTextNode(": " + detail));
    if (failed && reason && episode.error && reason !== episode.error) {
      box.appendChild(el("span", "muted end-reason-extra", " (" + reason + ")"));
    }
    var final = episode.final_observation;
    if (final) {
      var finalBox = el("div", "final-observation");
      finalBox.appendChild(el("div", "muted final-observation-label", "Final state"));
      var target = el("div", "observation");
      finalBox.appendChild(target);
      box.appendChild(finalBox);
      window.ArenaRenderers.render(target, final, episode, context);
    }
    box.hidden = false;
  }

  /* The scrubber marks of a state's steps: illegal actions, rewards, errors. */
  function eventMarks(state) {
    var marks = [];
    state.steps.forEach(function (step, pos) {
      var events = window.Arena.eventsOf(step);
      if (events.length > 0) {
        marks.push({ pos: pos, step: step.index, kinds: events, title: "Step " + step.index + ": " + events.join(", ") });
      }
    });
    return marks;
  }

  // A scrubber is a few hundred pixels wide: past this many marks, each stands for
  // the marked steps of one slice of the episode (a long episode has thousands).
  var MAX_DRAWN_MARKS = 400;
  var KIND_ORDER = ["differ", "error", "illegal", "reward"];

  /*
   * Marks (sorted by pos) gathered into at most MAX_DRAWN_MARKS slices of the
   * scrubber: each shows the first marked step of its slice, with every kind
   * found in it, most important first.
   */
  function binMarks(marks, lastPos) {
    var binned = [];
    var current = null;
    var currentBin = -1;
    marks.forEach(function (m) {
      var bin = lastPos > 0 ? Math.floor((m.pos / lastPos) * (MAX_DRAWN_MARKS - 1)) : 0;
      if (bin !== currentBin) {
        currentBin = bin;
        current = { pos: m.pos, step: m.step, kinds: m.kinds.slice(), count: 0, lastStep: m.step };
        binned.push(current);
      }
      current.count += 1;
      current.lastStep = m.step;
      m.kinds.forEach(function (kind) {
        if (current.kinds.indexOf(kind) < 0) {
          current.kinds.push(kind);
        }
      });
    });
    binned.forEach(function (m) {
      m.kinds.sort(function (a, b) {
        return KIND_ORDER.indexOf(a) - KIND_ORDER.indexOf(b);
      });
      m.title =
        m.count === 1
          ? "Step " + m.step + ": " + m.kinds.join(", ")
          : "Steps " + m.step + "–" + m.lastStep + ": " + m.count + " marked (" + m.kinds.join(", ") + ")";
    });
    return binned;
  }

  /*
   * Draw marks ({pos, step, kinds, title}, sorted by pos) above a scrubber
   * whose positions run 0…lastPos; the first kind gives the colour, several
   * kinds a taller mark.
   */
  function drawMarks(container, marks, lastPos) {
    clear(container);
    var shown = marks.length > MAX_DRAWN_MARKS ? binMarks(marks, lastPos) : marks;
    var fragment = document.createDocumentFragment();
    shown.forEach(function (m) {
      var mark = el("span", "mark mark-" + m.kinds[0]);
      if (m.kinds.length > 1) {
        mark.classList.add("mark-multi");
      }
      mark.style.left = (lastPos > 0 ? (m.pos / lastPos) * 100 : 0) + "%";
      mark.setAttribute("data-pos", String(m.pos));
      mark.setAttribute("data-step", String(m.step));
      mark.title = m.title;
      fragment.appendChild(mark);
    });
    container.appendChild(fragment);
  }

  function highlightMark(container, pos) {
    var current = container.querySelector(".mark.is-current");
    if (current) {
      current.classList.remove("is-current");
    }
    if (pos >= 0) {
      var mark = container.querySelector('.mark[data-pos="' + pos + '"]');
      if (mark) {
        mark.classList.add("is-current");
      }
    }
  }

  /* Fill [data-episode-field] nodes (status badge, score, counts) from the episode. */
  function updateHeader(episode, root) {
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

  function isTypingTarget(target, scrubber) {
    if (!target || target === document.body) {
      return false;
    }
    if (target.isContentEditable) {
      return true;
    }
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && target !== scrubber);
  }

  /*
   * The player's keys: ←/→ a step, Shift+←/→ the previous/next marked event,
   * Space play/pause, Home/End first/last. `actions` has move(direction),
   * first(), last(), and optionally jumpToEvent(direction) and togglePlay().
   * On the scrubber itself plain arrows, Home and End are left to the range
   * input, which moves and fires "input".
   */
  function bindKeys(scrubber, actions) {
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) {
        return;
      }
      var target = event.target;
      if (isTypingTarget(target, scrubber)) {
        return;
      }
      var onScrubber = target === scrubber;
      var onButton = target && (target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY");
      var key = event.key;
      var handled = true;

      if ((key === " " || key === "Spacebar") && actions.togglePlay) {
        if (onButton) {
          return; // the focused button gets its own click
        }
        actions.togglePlay();
      } else if (key === "ArrowLeft" || key === "ArrowRight") {
        if (onScrubber && !event.shiftKey) {
          return;
        }
        var direction = key === "ArrowLeft" ? -1 : 1;
        if (event.shiftKey) {
          if (actions.jumpToEvent) {
            actions.jumpToEvent(direction);
          }
        } else {
          actions.move(direction);
        }
      } else if (key === "Home" || key === "End") {
        if (onScrubber) {
          return;
        }
        if (key === "Home") {
          actions.first();
        } else {
          actions.last();
        }
      } else {
        handled = false;
      }
      if (handled) {
        event.preventDefault();
      }
    });
  }

  /* "Could not load steps (…). Retry" in the message line. */
  function showLoadError(messageNode, root, err, retry) {
    clear(messageNode);
    messageNode.appendChild(
      document.createTextNode("Could not load steps (" + (err && err.message ? err.message : "network error") + "). ")
    );
    var button = el("button", "link-button", "Retry");
    button.type = "button";
    button.addEventListener("click", function () {
      setText(messageNode, "");
      root.removeAttribute("data-error");
      retry();
    });
    messageNode.appendChild(button);
    root.setAttribute("data-error", "load");
  }

  window.Arena.view = {
    fmtNumber: fmtNumber,
    stepPanels: stepPanels,
    renderStep: renderStep,
    renderStepWhole: renderStepWhole,
    renderNoStep: renderNoStep,
    renderEnd: renderEnd,
    eventMarks: eventMarks,
    drawMarks: drawMarks,
    highlightMark: highlightMark,
    updateHeader: updateHeader,
    bindKeys: bindKeys,
    showLoadError: showLoadError,
  };
})();
