"""One router per resource of the read API; each guards its operation's authority."""
