/*
 * The submission form's task choice (templates/arena/submit.html), a convenience on
 * top of a form that works without it: the server expands a whole suite and leaves
 * image formats out in LLM mode by itself, and the preview is computed server-side.
 *
 * - "Whole suite" checks or clears the suite's tasks; checking every task by hand
 *   checks it, clearing one clears it (and shows it as partly chosen);
 * - LLM mode hides the image formats (CSS, class "mode-llm") and clears them, so what
 *   is checked is what is sent;
 * - "As in the paper" ticks and locks the values of the suite's swept options;
 * - after a refused submission the error summary takes the focus, after a preview the
 *   preview does, so keyboard and screen-reader users land on what changed.
 */
(function () {
  "use strict";

  var form = document.getElementById("submission-form");
  if (!form) {
    return;
  }

  function textOnly() {
    var chosen = form.querySelector("input[name=mode]:checked");
    return Boolean(chosen && chosen.value === "llm");
  }

  function offered(fieldset) {
    var boxes = fieldset.querySelectorAll("input[name=tasks]");
    return Array.prototype.filter.call(boxes, function (box) {
      return !(textOnly() && box.hasAttribute("data-image-format"));
    });
  }

  function syncWhole(fieldset) {
    var whole = fieldset.querySelector("input[data-whole-suite]");
    var boxes = offered(fieldset);
    var checked = boxes.filter(function (box) { return box.checked; }).length;
    if (whole.checked && checked === boxes.length) {
      whole.indeterminate = false;
      return;
    }
    whole.checked = boxes.length > 0 && checked === boxes.length;
    whole.indeterminate = checked > 0 && checked < boxes.length;
  }

  var suites = form.querySelectorAll("fieldset.suite");
  Array.prototype.forEach.call(suites, function (fieldset) {
    var whole = fieldset.querySelector("input[data-whole-suite]");
    whole.addEventListener("change", function () {
      offered(fieldset).forEach(function (box) { box.checked = whole.checked; });
      whole.indeterminate = false;
    });
    fieldset.addEventListener("change", function (event) {
      if (event.target.name === "tasks") {
        syncWhole(fieldset);
      }
    });
    if (whole.checked) {
      offered(fieldset).forEach(function (box) { box.checked = true; });
    }
    syncWhole(fieldset);
  });

  /* A suite played as in its paper plays every value of its swept options: its
   * values are shown ticked and cannot be unticked (disabled boxes are not sent, and
   * a sweep sent without values is played whole). */
  Array.prototype.forEach.call(suites, function (fieldset) {
    var paper = fieldset.querySelector("input[name=paper_protocol]");
    if (!paper) {
      return;
    }
    function syncSweeps() {
      Array.prototype.forEach.call(fieldset.querySelectorAll(".task-sweep input[type=checkbox]"), function (box) {
        if (paper.checked) {
          box.checked = true;
        }
        box.disabled = paper.checked;
      });
    }
    paper.addEventListener("change", syncSweeps);
    syncSweeps();
  });

  Array.prototype.forEach.call(form.querySelectorAll("input[name=mode]"), function (radio) {
    radio.addEventListener("change", function () {
      form.classList.toggle("mode-llm", textOnly());
      if (textOnly()) {
        Array.prototype.forEach.call(form.querySelectorAll("input[data-image-format]"), function (box) {
          box.checked = false;
        });
      }
      Array.prototype.forEach.call(suites, function (fieldset) {
        var whole = fieldset.querySelector("input[data-whole-suite]");
        if (whole.checked) {
          offered(fieldset).forEach(function (box) { box.checked = true; });
        }
        syncWhole(fieldset);
      });
    });
  });

  var landing = document.getElementById("error-summary") || document.getElementById("preview");
  if (landing) {
    landing.focus();
  }
})();
