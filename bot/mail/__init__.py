"""Mail in and out: reading raw messages, classifying them, the command grammar,
quote stripping, and (elsewhere in this package) IMAP, Maildir, SMTP and the pipeline.

The reading half (``reading``, ``body``, ``htmltext``, ``quotes``, ``dsn``,
``classify``, ``grammar``) is pure: functions on bytes and text, no I/O.
"""
