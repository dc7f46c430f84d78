/* Vault search from disk: loads the prebuilt index (search-index.js assigns
   window.RVAULT_SEARCH_INDEX) into MiniSearch and lists the hits. Results are
   built with textContent only (never innerHTML), so indexed text stays text.
   Without this script the page reads the same; only the search box is inert. */
(function () {
  "use strict";
  var data = window.RVAULT_SEARCH_INDEX;
  var form = document.getElementById("search");
  var input = document.getElementById("q");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  if (!data || !window.MiniSearch || !form || !input || !list || !status) {
    return;
  }
  var index = window.MiniSearch.loadJS(data, {
    fields: ["title", "text"],
    storeFields: ["page", "title", "kind", "label", "moment", "snippet"]
  });
  var MAX = 30;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text) { node.textContent = text; }
    return node;
  }

  function item(hit) {
    var li = element("li", "hit hit-" + hit.kind);
    var link = element("a", "hit-title", hit.title);
    link.href = hit.page;
    li.appendChild(link);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(element("span", "hit-label", hit.kind + ": " + hit.label));
    if (hit.moment) {
      li.appendChild(document.createTextNode(" "));
      var play = element("a", "hit-moment", "play this moment");
      play.href = hit.moment;
      li.appendChild(play);
    }
    li.appendChild(element("p", "hit-snippet", hit.snippet));
    return li;
  }

  function show(query) {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    query = query.trim();
    if (!query) { status.textContent = ""; return; }
    var hits = index.search(query, {
      combineWith: "AND",
      prefix: function (term) { return term.length > 3; },
      boost: { title: 2 }
    });
    status.textContent = hits.length === 0 ? "No result for \u201c" + query + "\u201d." :
      hits.length + " result" + (hits.length === 1 ? "" : "s") + " for \u201c" + query + "\u201d" +
      (hits.length > MAX ? " (first " + MAX + " shown)." : ".");
    hits.slice(0, MAX).forEach(function (hit) { list.appendChild(item(hit)); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show(input.value);
  });
  var query = new URLSearchParams(window.location.search).get("q");
  if (query) { input.value = query; show(query); }
}());
