"""The use cases of the game master's service, one module each.

- ``inbound``: a mail -> spool, ledger, classify, moves, ONE reply;
- ``publish``: an evaluated round -> newsletters, archive, the GM's digest;
- ``remind``: reminders to managers without a lineup;
- ``outgoing``: ``queue_mail()``, the one way any mail enters the outbox,
  and notices to the game master;
- ``drain``: sending what the outbox holds.

They sit above storage, the league, mail and rendering and below the
wiring in ``bot.app`` (the worker, the CLI and the demo drive ``App``).
"""
