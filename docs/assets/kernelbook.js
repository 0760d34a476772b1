// The language switcher links the same page in the other language; carry the
// section anchor along, so a reader in "#fusion" lands in "#fusion" (anchors are
// identical in both languages by construction).
document.addEventListener("click", function (event) {
  var link = event.target instanceof Element && event.target.closest("a.md-select__link[hreflang]");
  if (link && window.location.hash && !link.hash) {
    link.hash = window.location.hash;
  }
}, true);
