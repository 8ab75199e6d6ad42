"""Helpers every test suite shares: one fake clock (``clock``), one mail builder
(``mails``) and one league on a real SQLite file (``league``)."""
