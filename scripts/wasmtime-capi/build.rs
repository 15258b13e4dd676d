//! Copies the C API headers that `wasmtime-c-api-impl`'s build script configured
//! (it publishes their folder as DEP_WASMTIME_C_API_INCLUDE) to $WG_WASMTIME_PREFIX/include.
use std::{env, fs, path::Path};

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create include dir");
    for entry in fs::read_dir(from).expect("read include dir") {
        let entry = entry.expect("dir entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), &dest).expect("copy header");
        }
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=WG_WASMTIME_PREFIX");
    let include = env::var("DEP_WASMTIME_C_API_INCLUDE").expect("wasmtime-c-api-impl did not publish its headers");
    if let Ok(prefix) = env::var("WG_WASMTIME_PREFIX") {
        copy_tree(Path::new(&include), &Path::new(&prefix).join("include"));
    }
}
