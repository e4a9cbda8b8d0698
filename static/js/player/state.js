/*
 * The player's state for one episode: its steps in index order with their
 * cumulative reward, the selected position, and whether the episode is being
 * watched live, has ended, or waits for a deep-linked step. No DOM, no network:
 * player/transport.js feeds it, player/view.js and player/player.js draw from it.
 */
(function () {
  "use strict";

  var isNum = window.Arena.isNum;
  var episodeStatus = window.Arena.episodeStatus;

  /* What a step shows on the scrubber, most important first. */
  function eventsOf(step) {
    var events = [];
    if (step.error) {
      events.push("error");
    }
    if (step.legal === false && !step.cut_off) {  // an answer cut off is not an illegal action
      events.push("illegal");
    }
    if (isNum(step.reward) && step.reward !== 0) {
      events.push("reward");
    }
    return events;
  }

  function EpisodeState(episode) {
    this.episode = episode;
    this.steps = []; // sorted by step.index
    this.known = new Set(); // indices already held
    this.cumulative = []; // cumulative reward up to and including position i
    this.pos = -1; // selected position in `steps`
    this.live = false;
    this.following = true; // live: keep the newest step selected
    this.ended = episodeStatus.isTerminal(episode.status);
    this.requested = null; // ?step=N not yet applied
    this.loading = false; // replay steps being fetched
  }

  EpisodeState.prototype.isTerminal = function () {
    return this.ended || episodeStatus.isTerminal(this.episode.status);
  };

  EpisodeState.prototype.lastPos = function () {
    return this.steps.length - 1;
  };

  EpisodeState.prototype.current = function () {
    return this.pos >= 0 ? this.steps[this.pos] : null;
  };

  EpisodeState.prototype.lastStep = function () {
    return this.steps.length ? this.steps[this.steps.length - 1] : null;
  };

  /*
   * The greatest index up to which every step is held (-1: none): fetching
   * the steps after it fills any gap a dropped live message left.
   */
  EpisodeState.prototype.heldThrough = function () {
    var pos = 0;
    while (pos < this.steps.length && this.steps[pos].index === pos) {
      pos++;
    }
    return pos - 1;
  };

  /* The step with exactly this index, or null. */
  EpisodeState.prototype.stepWithIndex = function (index) {
    var pos = this.positionForIndex(index);
    return pos >= 0 && this.steps[pos].index === index ? this.steps[pos] : null;
  };

  /* Position of the first step with index >= wanted (clamped to the last). */
  EpisodeState.prototype.positionForIndex = function (wanted) {
    var steps = this.steps;
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
  };

  EpisodeState.prototype.eventPositionFrom = function (pos, direction) {
    for (var i = pos + direction; i >= 0 && i <= this.lastPos(); i += direction) {
      if (eventsOf(this.steps[i]).length > 0) {
        return i;
      }
    }
    return -1;
  };

  EpisodeState.prototype.recomputeCumulative = function (from) {
    var total = from > 0 ? this.cumulative[from - 1] : 0;
    for (var i = from; i < this.steps.length; i++) {
      var r = this.steps[i].reward;
      total += isNum(r) ? r : 0;
      this.cumulative[i] = total;
    }
    this.cumulative.length = this.steps.length;
  };

  /*
   * Merge new steps (any order, repeats ignored); returns how many were added.
   * The selected position keeps pointing at the same step.
   */
  EpisodeState.prototype.addSteps = function (list) {
    if (!Array.isArray(list) || list.length === 0) {
      return 0;
    }
    var added = 0;
    var firstChanged = this.steps.length;
    for (var k = 0; k < list.length; k++) {
      var step = list[k];
      if (!step || typeof step !== "object" || !Number.isInteger(step.index) || step.index < 0) {
        continue;
      }
      if (this.known.has(step.index)) {
        continue;
      }
      this.known.add(step.index);
      var n = this.steps.length;
      if (n === 0 || this.steps[n - 1].index < step.index) {
        this.steps.push(step);
      } else {
        // Out of order (polling after a websocket drop): insert in place.
        var at = 0;
        while (at < n && this.steps[at].index < step.index) {
          at++;
        }
        this.steps.splice(at, 0, step);
        firstChanged = Math.min(firstChanged, at);
        if (at <= this.pos) {
          this.pos += 1;
        }
      }
      added++;
    }
    if (added === 0) {
      return 0;
    }
    this.recomputeCumulative(firstChanged);
    if (this.live && !this.ended) {
      // The episode row's counters only settle at the end; count what we have.
      // As the stored tallies count them: an answer cut off is not an illegal action.
      this.episode.num_steps = this.steps.length;
      this.episode.illegal_steps = this.steps.filter(function (s) {
        return s.legal === false && !s.cut_off;
      }).length;
      this.episode.cut_off_steps = this.steps.filter(function (s) {
        return s.cut_off === true;
      }).length;
    }
    return added;
  };

  /*
   * The episode ended while watched: take the fields of the end message. A
   * status outside the terminal vocabulary (an old message) counts as finished.
   */
  EpisodeState.prototype.end = function (endEpisode) {
    var episode = this.episode;
    this.ended = true;
    if (endEpisode && typeof endEpisode === "object") {
      Object.keys(endEpisode).forEach(function (key) {
        episode[key] = endEpisode[key];
      });
    }
    if (!episodeStatus.isTerminal(episode.status)) {
      episode.status = "finished";
    }
  };

  window.Arena.EpisodeState = EpisodeState;
  window.Arena.eventsOf = eventsOf;
})();
