"""The server-rendered pages, one module per screen (tablets, phones and the wall screen).

Every page works without JavaScript: the forms post here and the same services decide; with
JavaScript the forms drive the JSON API instead (see static/js/table/, screen.js first). Views stay thin:
selectors read, services write, and what differs between games is asked of the registries
(``referee.rules.GAMES``, ``referee.games.PAGES``). The club's leaderboard and a member's
history are scoring's pages (``scoring.pages``).
"""
