/*
 * How the player gets steps: REST paging of a stored episode
 * (GET <steps_url>?page_size=&after=, following `next`), and for a running
 * episode the live websocket (/ws/episodes/<id>/: stored steps, new steps,
 * then an end message) with a polling fallback when the socket cannot be
 * opened or drops.
 *
 * Both send steps with long texts cut (step.truncated names the cut fields);
 * FullSteps fetches one step whole (step.full_url) when it is shown.
 *
 * It only hands what arrives to callbacks; player/state.js holds it.
 */
(function () {
  "use strict";

  var PAGE_SIZE = 500;
  var POLL_MS = 2000;
  var POLLING_MESSAGE = "Live connection unavailable — refreshing every 2 s.";

  var isNum = window.Arena.isNum;
  var episodeStatus = window.Arena.episodeStatus;

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

  /* GET JSON; `options.signal` (an AbortSignal) cancels the request. */
  function getJson(url, options) {
    return fetch(url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      signal: options && options.signal ? options.signal : undefined,
    }).then(function (res) {
      if (!res.ok) {
        var error = new Error("HTTP " + res.status);
        error.status = res.status;
        throw error;
      }
      return res.json();
    });
  }

  function stepsPageUrl(stepsUrl, afterIndex) {
    var url = new URL(stepsUrl, window.location.href);
    url.searchParams.set("page_size", String(PAGE_SIZE));
    if (afterIndex >= 0) {
      url.searchParams.set("after", String(afterIndex));
    } else {
      url.searchParams.delete("after");
    }
    return url.pathname + url.search;
  }

  /*
   * Fetch an episode's steps after the step index `afterIndex` (-1: all of
   * them) and follow `next` links: a page ends at a step count or at a byte
   * size, whichever comes first. Each page's results go to
   * onPage(results, totalCount). Resolves when done.
   */
  function fetchSteps(stepsUrl, afterIndex, onPage) {
    function fetchPage(url) {
      return getJson(url).then(function (data) {
        onPage(data && data.results, data && isNum(data.count) ? data.count : null);
        var next = data && data.next ? sameOriginPath(data.next) : null;
        return next ? fetchPage(next) : null;
      });
    }
    return fetchPage(stepsPageUrl(stepsUrl, afterIndex));
  }

  /*
   * Steps whole, fetched when they are shown. Lists of steps cut long texts
   * (a model may answer megabytes), so a replay holds the cut steps and only
   * the few whole ones last shown, not every huge text of the episode.
   */
  function FullSteps(keep) {
    this.keep = keep || 4;
    this.held = new Map(); // same-origin URL -> promise of the whole step
  }

  /* Whether `step` came with texts cut and says where to get it whole. */
  FullSteps.prototype.isCut = function (step) {
    return Boolean(
      step && Array.isArray(step.truncated) && step.truncated.length > 0 && typeof step.full_url === "string"
    );
  };

  /* A promise of the whole step (fetched once while held). */
  FullSteps.prototype.get = function (step) {
    var url = sameOriginPath(step.full_url);
    if (!url) {
      return Promise.reject(new Error("no address for the whole step"));
    }
    var held = this.held;
    var promise = held.get(url);
    if (promise) {
      held.delete(url); // most recently used goes last
    } else {
      promise = getJson(url);
      promise.catch(function () {
        if (held.get(url) === promise) {
          held.delete(url); // a failed fetch is tried again next time
        }
      });
    }
    held.set(url, promise);
    while (held.size > this.keep) {
      held.delete(held.keys().next().value);
    }
    return promise;
  };

  function episodeApiUrl(episode) {
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

  /*
   * Follow a running episode. `state` is its Arena.EpisodeState (read only:
   * how many steps are held, the last one); `on` has
   *   steps(list)    steps arrived (websocket message or a polled page)
   *   ready()        the live view has something to show
   *   end(fields)    the episode is over (episode fields of the end message)
   *   status(value)  the episode's status changed while polling
   *   message(text)  a line for the player's status area
   */
  function LiveFeed(episode, state, on) {
    this.episode = episode;
    this.state = state;
    this.on = on;
    this.polling = false;
    this.pollTimer = null;
    this.stopped = false;
  }

  LiveFeed.prototype.start = function () {
    var episode = this.episode;
    if (!episode.ws_path || typeof window.WebSocket !== "function") {
      this.startPolling();
      return;
    }
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket;
    try {
      socket = new window.WebSocket(scheme + window.location.host + episode.ws_path);
    } catch (err) {
      this.startPolling();
      return;
    }
    var feed = this;
    var gotEnd = false;
    socket.addEventListener("open", function () {
      feed.on.ready();
      feed.on.message("");
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
        feed.on.steps([msg.step]);
        feed.on.ready();
      } else if (msg.type === "end") {
        gotEnd = true;
        feed.on.end(msg.episode);
        try {
          socket.close();
        } catch (err) {
          // already closing
        }
      }
    });
    socket.addEventListener("close", function () {
      if (!gotEnd && !feed.stopped) {
        feed.startPolling();
      }
    });
  };

  /* The episode ended (by any route): no more polling. */
  LiveFeed.prototype.stop = function () {
    this.stopped = true;
    this.polling = false;
    if (this.pollTimer !== null) {
      window.clearTimeout(this.pollTimer);
      this.pollTimer = null;
    }
  };

  LiveFeed.prototype.startPolling = function () {
    if (this.polling || this.stopped) {
      return;
    }
    this.polling = true;
    this.on.message(POLLING_MESSAGE);
    this.pollOnce();
  };

  LiveFeed.prototype.schedulePoll = function () {
    var feed = this;
    if (this.polling && !this.stopped) {
      this.pollTimer = window.setTimeout(function () {
        feed.pollOnce();
      }, POLL_MS);
    }
  };

  LiveFeed.prototype.pollOnce = function () {
    var feed = this;
    var episode = this.episode;
    this.pollTimer = null;
    if (!this.polling || this.stopped) {
      return;
    }
    var apiUrl = episodeApiUrl(episode);
    fetchSteps(episode.steps_url, this.state.heldThrough(), function (results) {
      feed.on.steps(results);
    })
      .then(function () {
        feed.on.ready();
        if (!apiUrl) {
          return null;
        }
        return getJson(apiUrl).catch(function () {
          return null;
        });
      })
      .then(function (fresh) {
        if (feed.stopped) {
          return;
        }
        var lastStep = feed.state.lastStep();
        if (fresh && episodeStatus.isTerminal(fresh.status)) {
          feed.on.end(fresh);
          return;
        }
        if (!fresh && lastStep && lastStep.done) {
          feed.on.end({ status: "finished", end_reason: lastStep.end_reason || episode.end_reason || "" });
          return;
        }
        if (fresh && fresh.status && fresh.status !== episode.status) {
          feed.on.status(fresh.status);
        }
        feed.on.message(POLLING_MESSAGE);
        feed.schedulePoll();
      })
      .catch(function (err) {
        feed.on.message("Could not refresh (" + (err && err.message ? err.message : "network error") + "); retrying…");
        feed.schedulePoll();
      });
  };

  window.Arena.transport = {
    PAGE_SIZE: PAGE_SIZE,
    getJson: getJson,
    sameOriginPath: sameOriginPath,
    fetchSteps: fetchSteps,
    FullSteps: FullSteps,
    LiveFeed: LiveFeed,
  };
})();
