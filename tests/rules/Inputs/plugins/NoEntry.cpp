// A shared library that is not a Kiln plugin.
extern "C" int notAKilnPlugin() { return 0; }
