// A term's definition is written once per page, on its first link (site/glossary.py,
// titles_once); a later link to the same entry without a title gets the last one given
// there. This runs as the script loads, before DOMContentLoaded, when material turns
// titles into tooltips.
(function () {
  var titles = {};
  document.querySelectorAll("a.kb-term").forEach(function (link) {
    var href = link.getAttribute("href");
    if (link.hasAttribute("title")) {
      titles[href] = link.getAttribute("title");
    } else if (href in titles) {
      link.setAttribute("title", titles[href]);
    }
  });
})();

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

// Editions (site/editions.py). Choosing an edition in the version selector keeps the
// page and its anchor when that edition has the page, else goes to the nearest folder
// above it that it has (the chapter), else to the edition's home in this language, else
// its root: never a 404. The pages an edition has are read from its own sitemap.xml.
// Material's selector reads ../versions.json from the site's base, which for a page in
// another language's folder (/2026.12/en/) is that folder, not the edition's root: there
// the plugin leaves Material's selector out (data-selector) and this draws the same one
// from the edition root's ../versions.json, on this site, never elsewhere.
(function () {
  function meta() {
    return document.querySelector('meta[name="kb-edition"]');
  }

  function pathsOf(xml, version) {
    var found = {};
    var marker = "/" + version + "/";
    var nodes = xml.getElementsByTagName("*");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var url = node.localName === "loc" ? node.textContent : node.localName === "link" ? node.getAttribute("href") : null;
      var at = url ? url.indexOf(marker) : -1;
      if (at >= 0) found[url.slice(at + marker.length)] = true;
    }
    return found;
  }

  function target(root, version, rel, hash, lang) {
    var base = new URL("../" + version + "/", root);
    return fetch(new URL("sitemap.xml", base)).then(function (response) {
      if (!response.ok) throw new Error("no sitemap");
      return response.text();
    }).then(function (text) {
      var paths = pathsOf(new DOMParser().parseFromString(text, "application/xml"), version);
      var candidate = rel;
      while (candidate) {
        if (paths[candidate]) return new URL(candidate + (candidate === rel ? hash : ""), base);
        candidate = candidate.replace(/[^/]*\/?$/, "");
      }
      return new URL(lang && paths[lang + "/"] ? lang + "/" : "", base);
    }).catch(function () {
      return base;
    });
  }

  // Before Material's own handler (on document.body): every edition link, in either language.
  document.addEventListener("click", function (event) {
    var tag = meta();
    var link = event.target instanceof Element && event.target.closest("a.md-version__link");
    if (!tag || !link || event.metaKey || event.ctrlKey) return;
    var root = new URL(tag.getAttribute("data-root"), window.location.href);
    var version = new URL(link.href).pathname.replace(/\/$/, "").split("/").pop();
    event.preventDefault();
    event.stopPropagation();
    var here = window.location.pathname;
    var rel = here.indexOf(root.pathname) === 0 ? here.slice(root.pathname.length) : "";
    var own = tag.getAttribute("data-lang-prefix") || "";
    target(root, version, rel, window.location.hash, own.replace(/\/$/, "")).then(function (url) {
      window.location.href = url.href;
    });
  }, true);

  function draw(tag, versions) {
    var root = new URL(tag.getAttribute("data-root"), window.location.href);
    var current = tag.getAttribute("content");
    var topic = document.querySelector(".md-header__topic");
    if (!topic || !versions.length) return;
    var shown = versions.filter(function (v) { return v.version === current; })[0] || versions[0];
    var box = document.createElement("div");
    box.className = "md-version";
    var button = document.createElement("button");
    button.className = "md-version__current";
    button.setAttribute("aria-label", "Select version");
    button.textContent = shown.title || shown.version;
    var list = document.createElement("ul");
    list.className = "md-version__list";
    versions.forEach(function (v) {
      var item = document.createElement("li");
      item.className = "md-version__item";
      var link = document.createElement("a");
      link.className = "md-version__link";
      link.href = new URL("../" + v.version + "/", root).href;
      link.textContent = v.title || v.version;
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(button);
    box.appendChild(list);
    topic.appendChild(box);
  }

  function wire() {
    var tag = meta();
    if (!tag || !tag.hasAttribute("data-selector")) return;
    var root = new URL(tag.getAttribute("data-root"), window.location.href);
    fetch(new URL("../versions.json", root)).then(function (response) {
      return response.ok ? response.json() : [];
    }).then(function (versions) {
      draw(tag, versions);
    }).catch(function () {});
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wire);
  } else {
    wire();
  }
})();

// Accessibility (tests/test_accessibility*.py). Material's search is a role="dialog" with no
// name: it takes its search box's label. A box of code or output that scrolls sideways is
// reachable from the keyboard (tabindex=0, as material does for its own code blocks), so a
// reader without a mouse can scroll it with the arrow keys: the notebook pages' boxes
// (mkdocs-jupyter), material's wrappers of wide tables, and our own tables' boxes get it
// here, at the width the page is read at.
(function () {
  var SCROLLERS = ".jupyter-wrapper pre, .jupyter-wrapper .highlight-ipynb, .md-typeset__scrollwrap, " +
    ".kb-environment, .kb-kernels, .kb-device-checks";

  function label() {
    var dialog = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    var input = document.querySelector(".md-search__input");
    var name = input && (input.getAttribute("aria-label") || input.getAttribute("placeholder"));
    if (dialog && name) dialog.setAttribute("aria-label", name);
  }

  function scrollers() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1 && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
      }
    });
  }

  function wire() {
    label();
    scrollers();
    window.addEventListener("resize", scrollers);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wire);
  } else {
    wire();
  }
})();
