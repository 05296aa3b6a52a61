"""Acknowledgements of privileged subscribers: ``DELETE /delete/{subId}/{publishId}`` (reference
behaviour of ``privilegedSubscriber``).

A file delivered to a privileged subscription stays in the spool and is offered again until the
subscriber says it is done with it. The subscriber authenticates with its subscription's delivery
credentials (the ones it receives with every delivery, the password opened from its sealed form
to be compared); any node answers, whichever holds the file.
"""

from __future__ import annotations

import hmac
import logging

from ..access.credentials import Credentials
from ..store.blobs import BlobStore
from ..store.db import Database
from ..store.secrets import Sealer, UnsealError
from ..store.unit_of_work import UnitOfWork
from ..web.errors import NotFound, Unauthorized
from .errors import SUBSCRIPTION_NOT_FOUND
from .links import positive_id
from .repository import Repositories
from .subscription_model import Subscription

log = logging.getLogger("netplatform.distribution.acknowledgements")

ACKNOWLEDGE_REALM = 'Basic realm="delete"'
NOT_PRIVILEGED = "Not a privileged subscription."
FILE_NOT_QUEUED = "No such file for this subscription."


class Acknowledgements:
    def __init__(self, db: Database, blobs: BlobStore, node: str, sealer: Sealer) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.blobs = blobs
        self.sealer = sealer
        self.node = node  # removes only its own blobs; other nodes sweep theirs

    def acknowledge(self, sub_id_text: str, publish_id: str, credentials: Credentials | None) -> None:
        """End the subscription's deliveries of the file: 404 for an unknown subscription or file,
        401 for wrong credentials or a subscription that is not privileged."""
        sub_id = positive_id(sub_id_text)
        if sub_id is None:
            raise NotFound(SUBSCRIPTION_NOT_FOUND)

        def work(repo: Repositories) -> list[str]:
            subscription = repo.subscriptions.find(sub_id)
            if subscription is None:
                raise NotFound(SUBSCRIPTION_NOT_FOUND)
            _authorize(subscription, credentials, self._password(subscription))
            unused = repo.queue.acknowledge(sub_id, publish_id, self.node)
            if unused is None:
                raise NotFound(FILE_NOT_QUEUED)
            return unused

        for name in self.unit.write(work, retry=False):
            self.blobs.delete(name)

    def _password(self, subscription: Subscription) -> str | None:
        """The delivery password; None when no configured key opens it (nothing then matches)."""
        try:
            return self.sealer.open(subscription.fields.delivery.sealed_password)
        except UnsealError as error:
            log.error("acknowledgement for subscription %d: %s", subscription.id, error)
            return None


def _authorize(subscription: Subscription, credentials: Credentials | None, password: str | None) -> None:
    target = subscription.fields.delivery
    if credentials is None:
        raise Unauthorized(
            "Missing or bad Authorization header", headers={"WWW-Authenticate": ACKNOWLEDGE_REALM}
        )
    same_user = hmac.compare_digest(target.user.encode(), credentials.user.encode())
    same_password = password is not None and hmac.compare_digest(
        password.encode(), credentials.password.encode()
    )
    if not (same_user and same_password):
        raise Unauthorized("Subscriber not permitted", headers={"WWW-Authenticate": ACKNOWLEDGE_REALM})
    if not subscription.fields.privileged:
        raise Unauthorized(NOT_PRIVILEGED)
