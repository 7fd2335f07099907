"""Running pipelines, as `graph_opt.api` and the command-line tools both do:
parsing pipeline text (`pipeline`), checking numerics after each pass
(`verify_numerics`), the crash reproducer (`reproducer`) and running a
pipeline under both (`instrument`)."""
