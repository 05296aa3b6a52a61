"""Delivery logs: the book that writes and reads them and their retention (services over
:mod:`..repository.logs`). The records themselves and the query of the log routes sit below the
repository, in :mod:`..log_model` and :mod:`..log_query`."""
