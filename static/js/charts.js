/*
 * Plotly charts. Each `.plotly-chart[data-figure="ID"]` element gets the
 * figure stored in <script type="application/json" id="ID">
 * ({"data": [...], "layout": {...}}). Plotly itself is loaded separately,
 * before this file.
 */
(function () {
  "use strict";

  var DEFAULT_CONFIG = { responsive: true, displaylogo: false };

  function note(chart, text) {
    window.Arena.clear(chart);
    chart.appendChild(window.Arena.el("p", "muted chart-note", text));
    chart.setAttribute("data-chart-state", "error");
  }

  function readFigure(id) {
    var node = id ? document.getElementById(id) : null;
    if (!node) {
      return null;
    }
    var fig = JSON.parse(node.textContent);
    // A figure serialised twice (fig.to_json() passed to json_script) is a string.
    if (typeof fig === "string") {
      fig = JSON.parse(fig);
    }
    return fig && typeof fig === "object" ? fig : null;
  }

  function drawAll() {
    var charts = document.querySelectorAll(".plotly-chart[data-figure]");
    Array.prototype.forEach.call(charts, function (el) {
      if (el.getAttribute("data-chart-state") === "drawn") {
        return;
      }
      if (!window.Plotly || typeof window.Plotly.newPlot !== "function") {
        note(el, "Chart unavailable: the plotting library did not load.");
        return;
      }
      var fig;
      try {
        fig = readFigure(el.getAttribute("data-figure"));
      } catch (err) {
        fig = null;
      }
      if (!fig) {
        note(el, "Chart unavailable: no figure data.");
        return;
      }
      var config = Object.assign({}, fig.config || {}, DEFAULT_CONFIG);
      // A figure taller than the box's minimum (one line per run or paper figure)
      // gets a box that tall, so it does not spill over what follows.
      if (fig.layout && typeof fig.layout.height === "number") {
        el.style.minHeight = fig.layout.height + "px";
      }
      try {
        var drawn = window.Plotly.newPlot(el, fig.data || [], fig.layout || {}, config);
        el.setAttribute("data-chart-state", "drawn");
        if (drawn && typeof drawn.catch === "function") {
          drawn.catch(function () {
            note(el, "Chart could not be drawn.");
          });
        }
      } catch (err) {
        note(el, "Chart could not be drawn.");
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
