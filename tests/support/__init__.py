"""The tests' support package, the one place for what more than one test module uses.

servers.py        LiveServer (an app in a thread on a port the OS picked), ServeProcess, free_port
serve_child.py    what a ServeProcess child runs: ``netplatform`` on sockets its parent bound
databases.py      a fresh SQLite file or PostgreSQL database per test
pairs.py          two instances of the platform over one database
tls.py            trustme certificates for HTTPS endpoints
receiver.py       endpoints that record what reaches them (Receiver, RecordingServer)
answers.py        ok(response, status): the checked JSON body of an answer
waiting.py        wait_until(condition, timeout=, what=): waits on a condition, not a fixed time
slow.py           which tests are marked slow (make test-fast leaves them out)
routes.py         the protected operations of a running service
openapi_examples.py  positive and negative OpenAPI examples over real HTTP
bus_platform.py   bus controller, router and authz in one ``netplatform serve``
configtree_paths.py, router_calls.py, distribution_calls.py, cbas.py
                  each service's request paths, bodies and calls, as a client writes them
"""
