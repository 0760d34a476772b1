// The language switcher links the same page in the other language; carry the
// section anchor along, so a reader in "#fusion" lands in "#fusion" (anchors are
// identical in both languages by construction).
document.addEventListener("click", function (event) {
  var link = event.target instanceof Element && event.target.closest("a.md-select__link[hreflang]");
  if (link && window.location.hash && !link.hash) {
    link.hash = window.location.hash;
  }
}, true);

// Copy buttons beside the instructors' canonical URLs (site/sections.py). They are
// `hidden` in the HTML, so a reader without JavaScript sees no dead button, only the
// URL as selectable text. Copying tries the asynchronous clipboard API, then the older
// execCommand("copy"); where both are refused (no permission, an insecure page) the URL
// is selected for the reader to copy by hand and the button says so. Nothing throws.
(function () {
  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (error) {
      done = false;
    }
    area.remove();
    return done;
  }

  function copy(text) {
    if (navigator.clipboard && typeof navigator.clipboard.writeText === "function") {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return legacyCopy(text); });
    }
    return Promise.resolve(legacyCopy(text));
  }

  var live = null;  // one polite live region: the button's aria-label hides its own text from screen readers

  function say(button, message, state) {
    if (!live) {
      live = document.createElement("div");
      live.className = "kb-live";
      live.setAttribute("role", "status");
      document.body.appendChild(live);
    }
    live.textContent = message;
    var label = button.getAttribute("data-kb-label") || button.textContent;
    button.setAttribute("data-kb-label", label);
    button.textContent = message;
    button.setAttribute("data-kb-state", state);
    clearTimeout(button.kbTimer);
    button.kbTimer = setTimeout(function () {
      button.textContent = label;
      button.removeAttribute("data-kb-state");
    }, 4000);
  }

  function wire() {
    document.querySelectorAll("button.kb-copy[hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element && event.target.closest("button.kb-copy");
    if (!button) {
      return;
    }
    var url = button.getAttribute("data-kb-copy");
    copy(url).then(function (done) {
      if (done) {
        say(button, button.getAttribute("data-kb-copied"), "copied");
        return;
      }
      var shown = button.parentElement.querySelector("code");
      if (shown) {
        window.getSelection().selectAllChildren(shown);
      }
      say(button, button.getAttribute("data-kb-failed"), "failed");
    });
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wire);
  } else {
    wire();
  }
})();
