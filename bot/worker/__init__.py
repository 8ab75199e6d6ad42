"""The worker: one long-running process per state directory that reads
mail, evaluates rounds at their deadlines, sends reminders and drains the
outbox (APScheduler 3.x), plus its lock, signal and logging helpers."""
