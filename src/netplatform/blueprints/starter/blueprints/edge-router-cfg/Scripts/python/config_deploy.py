"""Push the meshed base configuration to the router over NETCONF (run by the blueprint processor)."""


def process(context, netconf):
    config = context.resolved_template("baseconfig")
    netconf.lock(target="candidate")
    netconf.edit_config(config, target="candidate")
    netconf.commit()
    netconf.unlock(target="candidate")
    context.set_attribute("status", "success")
