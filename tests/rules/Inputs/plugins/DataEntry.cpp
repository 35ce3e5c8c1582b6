// A shared library whose kilnGetPluginInfo is a data symbol, not a function:
// calling it would jump into data.
extern "C" {
__attribute__((visibility("default"))) int kilnGetPluginInfo[16] = {1, 2, 3};
}
