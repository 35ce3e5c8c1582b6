// An empty module.
