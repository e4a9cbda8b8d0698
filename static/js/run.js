/*
 * Live progress on the run page.
 *
 * Reads <script type="application/json" id="run-data"> ({id, api_url,
 * status, ...}; without api_url it uses /api/runs/<id>/) and, while the run
 * is active (not in a terminal status of the vocabulary arena.js reads),
 * polls that URL every 2 s to update #run-progress (.progress > .progress-bar),
 * #run-progress-label, #run-status, #run-score (the primary metric of the
 * task's suite, as primary_metric gives it; the summed reward for a task
 * without one) and, if present, #run-illegal. When the run reaches a terminal
 * status the page is reloaded once so the server-rendered episode table is
 * complete.
 */
(function () {
  "use strict";

  var POLL_MS = 2000;
  var HIDDEN_POLL_MS = 10000; // background tab: poll less often
  var MAX_BACKOFF_MS = 30000;
  var runStatus = window.Arena.runStatus;

  // Class-safe names (as the server's |slugify): "budget exhausted" -> "budget-exhausted".
  function slug(status) {
    return String(status || "").toLowerCase().replace(/[^a-z0-9]+/g, "-");
  }

  var STATUSES = runStatus.all.map(slug);

  function byId(id) {
    return document.getElementById(id);
  }

  var dataNode = byId("run-data");
  if (!dataNode) {
    return;
  }
  var run;
  try {
    run = JSON.parse(dataNode.textContent);
  } catch (err) {
    return;
  }
  if (!run || typeof run !== "object") {
    return;
  }
  var apiUrl = typeof run.api_url === "string" && run.api_url ? run.api_url : null;
  if (!apiUrl && Number.isInteger(run.id)) {
    apiUrl = "/api/runs/" + run.id + "/"; // the REST route when run_data has no api_url
  }
  if (!apiUrl) {
    return;
  }

  var ui = {
    progress: byId("run-progress"),
    label: byId("run-progress-label"),
    tokens: byId("run-tokens"),
    cost: byId("run-cost"),
    status: byId("run-status"),
    score: byId("run-score"),
    illegal: byId("run-illegal"),
  };
  var bar = ui.progress ? ui.progress.querySelector(".progress-bar") : null;
  var failures = 0;

  var isNum = window.Arena.isNum;

  // 12345678 -> "12.3M", as the page's |compact filter writes token counts.
  function compact(n) {
    var units = [["B", 1e9], ["M", 1e6], ["k", 1e3]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(n) >= units[i][1]) {
        return (n / units[i][1]).toFixed(1) + units[i][0];
      }
    }
    return n.toFixed(0);
  }
  var setText = window.Arena.setText;

  function update(data) {
    var status = typeof data.status === "string" ? data.status : run.status;
    var total = isNum(data.episodes_total) ? data.episodes_total : null;
    var done = isNum(data.episodes_done) ? data.episodes_done : 0;
    var failed = isNum(data.episodes_failed) ? data.episodes_failed : 0;
    var pct = isNum(data.progress) ? data.progress : total ? (100 * done) / total : 0;
    pct = Math.max(0, Math.min(100, pct));

    if (bar) {
      bar.style.width = pct.toFixed(1) + "%";
      STATUSES.forEach(function (s) {
        bar.classList.toggle("is-" + s, s === slug(status));
      });
    }
    if (ui.progress) {
      ui.progress.setAttribute("role", "progressbar");
      ui.progress.setAttribute("aria-valuemin", "0");
      ui.progress.setAttribute("aria-valuemax", "100");
      ui.progress.setAttribute("aria-valuenow", String(Math.round(pct)));
    }
    if (ui.label) {
      // episodes_done counts finished episodes; failed ones are processed too.
      var text = done + failed + " / " + (total === null ? "?" : total) + " episodes";
      if (failed > 0) {
        text += " (" + failed + " failed)";
      }
      // A long episode moves the bar step by step; say how far the running ones are.
      if (isNum(data.steps_running) && data.steps_running > 0) {
        text += " · " + data.steps_running + (data.steps_running === 1 ? " step" : " steps") + " played by the running episodes";
        if (isNum(data.step_limit)) {
          text += " (limit " + data.step_limit + " each)";
        }
      }
      setText(ui.label, text);
    }
    if (ui.tokens && isNum(data.tokens_spent_in) && isNum(data.tokens_spent_out)) {
      setText(ui.tokens, compact(data.tokens_spent_in) + " in / " + compact(data.tokens_spent_out) + " out");
    }
    if (ui.cost && data.cost_usd !== undefined) {
      setText(ui.cost, isNum(data.cost_usd) ? "$" + data.cost_usd.toFixed(data.cost_usd < 1 ? 4 : 2) : "—");
    }
    if (ui.status) {
      STATUSES.forEach(function (s) {
        ui.status.classList.remove("badge-" + s, "status-" + s);
      });
      if (STATUSES.indexOf(slug(status)) >= 0) {
        ui.status.classList.add("status-" + slug(status));
      }
      setText(ui.status, status);
    }
    if (ui.score) {
      var metric = data.primary_metric || {
        mean: data.score_mean, stderr: data.score_stderr, digits: 3, unit: "",
      };
      if (isNum(metric.mean)) {
        var digits = Number.isInteger(metric.digits) ? metric.digits : 3;
        var score = metric.mean.toFixed(digits);
        if (isNum(metric.stderr)) {
          score += " ± " + metric.stderr.toFixed(digits);
        }
        setText(ui.score, score + (metric.unit || ""));
      } else {
        setText(ui.score, "—");
      }
    }
    if (ui.illegal) {
      setText(ui.illegal, isNum(data.illegal_rate) ? (100 * data.illegal_rate).toFixed(1) + "%" : "—");
    }
    run.status = status;
    document.documentElement.setAttribute("data-run-status", status);
  }

  function schedule(delay) {
    window.setTimeout(poll, delay);
  }

  function poll() {
    fetch(apiUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (res) {
        if (!res.ok) {
          throw new Error("HTTP " + res.status);
        }
        return res.json();
      })
      .then(function (data) {
        failures = 0;
        update(data || {});
        if (runStatus.isActive(run.status)) {
          schedule(document.hidden ? HIDDEN_POLL_MS : POLL_MS);
        } else {
          // Terminal: reload once for the complete episode table.
          window.location.reload();
        }
      })
      .catch(function () {
        failures += 1;
        schedule(Math.min(MAX_BACKOFF_MS, POLL_MS * Math.pow(2, failures)));
      });
  }

  // Only a run seen active polls, so the reload cannot loop.
  if (runStatus.isActive(run.status)) {
    schedule(POLL_MS);
  }
})();
