//! napi-build: the linker settings a Node-API module needs.

fn main() {
    napi_build::setup();
}
