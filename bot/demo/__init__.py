"""``turnited demo``: two seasons of Turnited with simulated managers, played
through the real pipeline on the embedded Maildir transport."""
