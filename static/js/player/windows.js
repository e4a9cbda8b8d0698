/*
 * A long ended episode, held a window at a time. A 100,000-step episode is
 * hundreds of megabytes of steps: the player fetches only the window of
 * WINDOW_STEPS steps (aligned on multiples of it) around the step shown and
 * its neighbours as the user moves, keeps at most MAX_WINDOWS of them, and
 * draws its scrubber from the episode's marks (GET <marks_url>: per kind of
 * event the step indices, as a list or a base64 bitmap; the reward gathered
 * before each window, which gives any step's cumulative reward from its own
 * window).
 *
 * Positions here are step indices: an ended episode's steps are 0…last.
 * No DOM: player.js draws from it.
 */
(function () {
  "use strict";

  var WINDOW_STEPS = 100;
  var MAX_WINDOWS = 12;
  var FETCH_DEBOUNCE_MS = 120; // a scrub fires many moves: fetch where it stops
  // The events the scrubber marks, most important first (as Arena.eventsOf).
  var EVENT_KINDS = ["error", "illegal", "reward"];

  var isNum = window.Arena.isNum;
  var getJson = window.Arena.transport.getJson;

  function withQuery(url, params) {
    var parsed = new URL(url, window.location.href);
    Object.keys(params).forEach(function (name) {
      parsed.searchParams.set(name, String(params[name]));
    });
    return parsed.pathname + parsed.search;
  }

  /* One kind's step indices, sorted, from {indices: […]} or {bitmap: base64}. */
  function decodeKind(encoded) {
    if (!encoded || typeof encoded !== "object") {
      return [];
    }
    if (Array.isArray(encoded.indices)) {
      return encoded.indices.filter(Number.isInteger);
    }
    if (typeof encoded.bitmap !== "string") {
      return [];
    }
    var bytes = window.atob(encoded.bitmap);
    var indices = [];
    for (var at = 0; at < bytes.length; at++) {
      var byte = bytes.charCodeAt(at);
      for (var bit = 0; byte !== 0 && bit < 8; bit++) {
        if (byte & (1 << bit)) {
          indices.push(at * 8 + bit);
        }
      }
    }
    return indices;
  }

  /* The marked steps, in index order: [{index, kinds}]. */
  function eventsFromMarks(marks) {
    var byIndex = new Map();
    EVENT_KINDS.forEach(function (kind) {
      decodeKind(marks && marks[kind]).forEach(function (index) {
        var kinds = byIndex.get(index);
        if (!kinds) {
          byIndex.set(index, (kinds = []));
        }
        kinds.push(kind);
      });
    });
    return Array.from(byIndex.keys())
      .sort(function (a, b) {
        return a - b;
      })
      .map(function (index) {
        return { index: index, kinds: byIndex.get(index) };
      });
  }

  function marksUrl(episode) {
    if (typeof episode.marks_url === "string" && episode.marks_url) {
      return episode.marks_url;
    }
    return episode.steps_url.replace(/steps\/?(\?.*)?$/, "marks/");
  }

  /*
   * `episode` has steps_url and marks_url; `onWindow(first, last)` is called
   * when the steps first…last arrive.
   */
  function StepWindows(episode, onWindow) {
    this.stepsUrl = episode.steps_url;
    this.marksUrl = withQuery(marksUrl(episode), { window: WINDOW_STEPS });
    this.onWindow = onWindow;
    this.lastIndex = isNum(episode.num_steps) ? episode.num_steps - 1 : -1;
    this.count = isNum(episode.num_steps) ? episode.num_steps : 0;
    this.events = []; // [{index, kinds}] once the marks are in
    this.rewardBefore = null;
    this.windows = new Map(); // window number -> {steps, cumulative}, least recently used first
    this.pending = new Map(); // window number -> AbortController of its fetch
    this.wanted = -1; // the window of the step shown
    this.heading = -1; // the window fetched next, beside it
    this.timer = null;
  }

  StepWindows.prototype.windowOf = function (index) {
    return Math.floor(index / WINDOW_STEPS);
  };

  /* Fetch the marks; resolves when they are in (the scrubber's length and events). */
  StepWindows.prototype.loadMarks = function () {
    var self = this;
    return getJson(this.marksUrl).then(function (data) {
      if (!data || typeof data !== "object") {
        throw new Error("bad marks");
      }
      if (Number.isInteger(data.last_index)) {
        self.lastIndex = data.last_index;
      }
      if (Number.isInteger(data.count)) {
        self.count = data.count;
      }
      self.events = eventsFromMarks(data.marks);
      self.rewardBefore = Array.isArray(data.reward_before) && data.window === WINDOW_STEPS ? data.reward_before : null;
      self.windows.forEach(function (held, number) {
        self.sumRewards(held, number);
      });
    });
  };

  /* The step with this index if its window is held, else null. */
  StepWindows.prototype.step = function (index) {
    var held = this.windows.get(this.windowOf(index));
    return held ? held.steps[index % WINDOW_STEPS] || null : null;
  };

  /* Whether the window of `index` is held (a step missing from it was never recorded). */
  StepWindows.prototype.holds = function (index) {
    return this.windows.has(this.windowOf(index));
  };

  /* The steps held around `index`, for renderers: {steps, position}. */
  StepWindows.prototype.around = function (index) {
    var held = this.windows.get(this.windowOf(index));
    var steps = held ? held.steps.filter(Boolean) : [];
    var step = this.step(index);
    return { steps: steps, position: step ? steps.indexOf(step) : -1 };
  };

  /* The reward summed up to and including step `index` (null before the marks). */
  StepWindows.prototype.cumulative = function (index) {
    var held = this.windows.get(this.windowOf(index));
    if (!held || !held.cumulative) {
      return null;
    }
    return held.cumulative[index % WINDOW_STEPS];
  };

  StepWindows.prototype.sumRewards = function (held, number) {
    if (!this.rewardBefore || !isNum(this.rewardBefore[number])) {
      held.cumulative = null;
      return;
    }
    var total = this.rewardBefore[number];
    held.cumulative = held.steps.map(function (step) {
      total += step && isNum(step.reward) ? step.reward : 0;
      return total;
    });
  };

  /* The nearest marked step after (direction 1) or before (-1) `index`, or -1. */
  StepWindows.prototype.eventFrom = function (index, direction) {
    var events = this.events;
    var lo = 0;
    var hi = events.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (events[mid].index <= index) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    // events[lo] is the first one after index; the one before is lo - 1, or lo - 2 if lo - 1 is index itself.
    if (direction > 0) {
      return lo < events.length ? events[lo].index : -1;
    }
    var before = lo - 1;
    if (before >= 0 && events[before].index === index) {
      before -= 1;
    }
    return before >= 0 ? events[before].index : -1;
  };

  /*
   * The step `index` is to be shown: its window is fetched (at once with
   * `now`, else once the moves pause), fetches of windows far from it are
   * cancelled, and once it is held the neighbouring window it is heading to
   * (the next one past its middle, else the previous one) is fetched too.
   */
  StepWindows.prototype.want = function (index, now) {
    var number = this.windowOf(index);
    this.wanted = number;
    this.heading = index % WINDOW_STEPS >= WINDOW_STEPS / 2 ? number + 1 : number - 1;
    this.touch(number);
    var self = this;
    this.pending.forEach(function (controller, other) {
      if (Math.abs(other - number) > 1) {
        if (controller !== true) {
          controller.abort();
        }
        self.pending.delete(other);
      }
    });
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.windows.has(number)) {
      this.fetchWindow(this.heading);
    } else if (now) {
      this.fetchWindow(number);
    } else {
      this.timer = window.setTimeout(function () {
        self.timer = null;
        self.fetchWindow(self.wanted);
      }, FETCH_DEBOUNCE_MS);
    }
  };

  /* Mark a held window as the most recently used. */
  StepWindows.prototype.touch = function (number) {
    var held = this.windows.get(number);
    if (held) {
      this.windows.delete(number);
      this.windows.set(number, held);
    }
  };

  StepWindows.prototype.fetchWindow = function (number) {
    var first = number * WINDOW_STEPS;
    if (number < 0 || first > this.lastIndex || this.windows.has(number) || this.pending.has(number)) {
      return;
    }
    var last = Math.min(this.lastIndex, first + WINDOW_STEPS - 1);
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    this.pending.set(number, controller || true);
    var self = this;
    var steps = new Array(last - first + 1);
    var fetchPage = function (url) {
      var options = controller ? { signal: controller.signal } : undefined;
      return getJson(url, options).then(function (data) {
        (data && Array.isArray(data.results) ? data.results : []).forEach(function (step) {
          if (step && Number.isInteger(step.index) && step.index >= first && step.index <= last) {
            steps[step.index - first] = step;
          }
        });
        var next = data && data.next ? window.Arena.transport.sameOriginPath(data.next) : null;
        return next ? fetchPage(next) : null;
      });
    };
    fetchPage(withQuery(this.stepsUrl, { from: first, to: last, page_size: WINDOW_STEPS }))
      .then(function () {
        if (self.pending.get(number) !== (controller || true)) {
          return; // cancelled meanwhile
        }
        self.pending.delete(number);
        var held = { steps: steps, cumulative: null };
        self.sumRewards(held, number);
        self.windows.set(number, held);
        self.evict();
        self.onWindow(first, last);
        if (number === self.wanted) {
          self.fetchWindow(self.heading);
        }
      })
      .catch(function (err) {
        if (self.pending.get(number) === (controller || true)) {
          self.pending.delete(number);
          if (number === self.wanted) {
            self.onWindow(first, last, err);
          }
        }
      });
  };

  /* Keep MAX_WINDOWS windows: drop the least recently used, never the wanted one. */
  StepWindows.prototype.evict = function () {
    var self = this;
    var numbers = Array.from(this.windows.keys());
    for (var k = 0; k < numbers.length && this.windows.size > MAX_WINDOWS; k++) {
      if (numbers[k] !== self.wanted) {
        this.windows.delete(numbers[k]);
      }
    }
  };

  /* Steps held right now (for the page's data attributes and tests). */
  StepWindows.prototype.heldCount = function () {
    var count = 0;
    this.windows.forEach(function (held) {
      count += held.steps.filter(Boolean).length;
    });
    return count;
  };

  window.Arena.StepWindows = StepWindows;
  window.Arena.StepWindows.WINDOW_STEPS = WINDOW_STEPS;
  window.Arena.StepWindows.MAX_WINDOWS = MAX_WINDOWS;
})();
