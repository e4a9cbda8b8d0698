/*
 * Observation renderers for the episode player.
 *
 * A renderer draws one step's observation into a container element:
 *
 *   ArenaRenderers.register("name", {
 *     render(container, step, episode, context) { ... }
 *   });
 *
 * `container` is empty when render is called. `step` and `episode` are the
 * objects described in player.js; `context` is {position, steps, previous}
 * (the step's position in the loaded list, the list itself, and the step
 * before it or null) for renderers that want to show what changed.
 *
 * Everything a renderer shows comes from a model or a game, so it is
 * untrusted text: build nodes with createElement and set text with
 * textContent only. Suite-specific renderers (chess board, ...) live in their
 * own files, loaded after this one, and register themselves by name.
 * Needs arena.js (Arena.el) first.
 */
(function () {
  "use strict";

  var registry = new Map();
  var el = window.Arena.el;

  /*
   * Accept only image URLs this site serves (relative or same-origin paths)
   * and inline data:image/ URLs; anything else gives null.
   */
  function safeImageUrl(url) {
    if (typeof url !== "string" || url === "") {
      return null;
    }
    if (/^data:image\/(png|jpeg|gif|webp);base64,/i.test(url)) {
      return url;
    }
    var parsed;
    try {
      parsed = new URL(url, window.location.href);
    } catch (err) {
      return null;
    }
    if (parsed.origin !== window.location.origin) {
      return null;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return null;
    }
    return parsed.pathname + parsed.search;
  }

  /*
   * An <img> for an observation frame. Small frames (game screens of a few
   * dozen pixels) are scaled up by a whole factor with crisp pixels.
   */
  function imageElement(url, alt, options) {
    var opts = options || {};
    var img = el("img", opts.className || "obs-image");
    img.alt = alt || "";
    img.decoding = "async";
    img.addEventListener("load", function () {
      var w = img.naturalWidth;
      var h = img.naturalHeight;
      var target = opts.targetWidth || 420;
      if (w > 0 && h > 0 && w <= 320 && w < target) {
        var scale = Math.max(1, Math.floor(target / w));
        img.classList.add("is-pixelated");
        img.style.width = w * scale + "px";
      }
    });
    img.addEventListener("error", function () {
      img.classList.add("is-broken");
    });
    var safe = safeImageUrl(url);
    if (safe) {
      img.src = safe;
    } else {
      img.classList.add("is-broken");
      img.alt = (alt ? alt + " " : "") + "(image unavailable)";
    }
    return img;
  }

  function emptyNote(text) {
    return el("p", "muted obs-empty", text);
  }

  function validate(name, renderer) {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("ArenaRenderers.register: the name must be a non-empty string");
    }
    if (!renderer || typeof renderer.render !== "function") {
      throw new TypeError("ArenaRenderers.register: renderer '" + name + "' needs a render(container, step, episode) method");
    }
  }

  function register(name, renderer) {
    validate(name, renderer);
    registry.set(name, renderer);
    return renderer;
  }

  function get(name) {
    return registry.get(name) || null;
  }

  function hasImage(step) {
    return Boolean(step && typeof step.observation_image === "string" && step.observation_image !== "");
  }

  function hasText(step) {
    return Boolean(step && typeof step.observation_text === "string");
  }

  /* The renderer name to use: the episode's if registered, else image/text. */
  function pick(episode, step) {
    var wanted = episode && episode.renderer;
    if (typeof wanted === "string" && registry.has(wanted)) {
      return wanted;
    }
    return hasImage(step) ? "image" : "text";
  }

  /* Clear the container and draw the step with the right renderer. */
  function render(container, step, episode, context) {
    window.Arena.clear(container);
    var name = pick(episode, step);
    container.setAttribute("data-renderer", name);
    try {
      registry.get(name).render(container, step, episode, context || {});
    } catch (err) {
      if (window.console) {
        window.console.error("renderer '" + name + "' failed; falling back", err);
      }
      window.Arena.clear(container);
      var fallback = hasImage(step) && name !== "image" ? "image" : "text";
      container.setAttribute("data-renderer", fallback);
      registry.get(fallback).render(container, step, episode, context || {});
    }
    return name;
  }

  function observationAlt(step) {
    var idx = step && typeof step.index === "number" ? step.index : "?";
    return "Observation shown before step " + idx;
  }

  function hasViewerFrame(step) {
    return Boolean(step && typeof step.viewer_frame === "string" && step.viewer_frame !== "");
  }

  /*
   * A dict or list written on one line (the cheetah's {'position': [...], ...})
   * wraps between its items instead of running off the side; grids and boards,
   * whose lines matter, keep them.
   */
  function isStructured(text) {
    var trimmed = text.trim();
    return /^[\[{(]/.test(trimmed) && /[\]})]$/.test(trimmed);
  }

  function observationText(step) {
    var pre = el("pre", "obs-text", step.observation_text);
    if (isStructured(step.observation_text)) {
      pre.classList.add("obs-structured");
    }
    return pre;
  }

  /*
   * The text with the game's picture beside it (TextAtari's console screen, the
   * cheetah's body, BALROG's worlds): the picture is for the viewer only, the agent
   * read the text. A wide picture (NetHack's 79×21 map) goes above the text.
   */
  function textBesideFrame(step) {
    var row = el("div", "obs-beside");
    row.appendChild(observationText(step));
    var figure = el("figure", "obs-figure obs-viewer-frame");
    var idx = typeof step.index === "number" ? step.index : "?";
    var picture = imageElement(step.viewer_frame, "Game screen at step " + idx, { targetWidth: 320 });
    picture.addEventListener("load", function () {
      if (picture.naturalWidth > 2 * picture.naturalHeight) {
        row.classList.add("obs-beside-wide");
      }
    });
    figure.appendChild(picture);
    figure.appendChild(el("figcaption", "muted", "Picture (not shown to the agent)"));
    row.appendChild(figure);
    return row;
  }

  /*
   * A renderer of a board game whose board is read off the text the model was shown
   * (chess.js, grid_games.js): the board drawn, the text under it. `read(text)` finds
   * the board or gives null, then the step is shown as its picture or its text;
   * `draw(found)` builds the board; `textClass(found)`, optional, adds classes to the text.
   */
  function boardFromText(read, draw, textClass) {
    return {
      render: function (container, step, episode, context) {
        var text = hasText(step) ? step.observation_text : "";
        var found = read(text);
        if (!found) {
          registry.get(hasImage(step) ? "image" : "text").render(container, step, episode, context);
          return;
        }
        container.appendChild(draw(found));
        container.appendChild(el("pre", "obs-text" + (textClass ? textClass(found) : ""), text));
      },
    };
  }

  /* Monospace text / ASCII observations. */
  register("text", {
    render: function (container, step, episode, context) {
      if (hasText(step) && hasViewerFrame(step)) {
        container.appendChild(textBesideFrame(step));
      } else if (hasText(step)) {
        container.appendChild(observationText(step));
      } else if (hasImage(step)) {
        registry.get("image").render(container, step, episode, context);
      } else {
        container.appendChild(emptyNote("(no observation recorded for this step)"));
      }
    },
  });

  /* Image frames (RGB observations). A text observation, if any, goes below. */
  register("image", {
    render: function (container, step, episode, context) {
      if (!hasImage(step)) {
        registry.get("text").render(container, step, episode, context);
        return;
      }
      var figure = el("figure", "obs-figure");
      figure.appendChild(imageElement(step.observation_image, observationAlt(step)));
      container.appendChild(figure);
      if (hasText(step) && step.observation_text !== "") {
        var details = el("details", "obs-text-details");
        details.appendChild(el("summary", null, "Text observation"));
        details.appendChild(el("pre", "obs-text", step.observation_text));
        container.appendChild(details);
      }
    },
  });

  window.ArenaRenderers = {
    register: register,
    get: get,
    has: function (name) {
      return registry.has(name);
    },
    names: function () {
      return Array.from(registry.keys());
    },
    pick: pick,
    render: render,
    // Helpers for renderers in other files (they build elements with Arena.el).
    boardFromText: boardFromText,
    safeImageUrl: safeImageUrl,
    imageElement: imageElement,
  };
})();
