a = "%{if b}c%{else}d%{else}e%{endif}"
