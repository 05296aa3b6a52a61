"""Sites on their own stores (issue 38): central's side (:mod:`.central`: the provisioning feed,
nodes announcing themselves, shipped log records taken in) and an edge node's (:mod:`.edge`: the
replica it follows, the logs it ships, the writes it refuses)."""
