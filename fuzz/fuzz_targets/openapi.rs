//! The OpenAPI assembly from plugin manifests: arbitrary manifest JSON goes through `plugin-api`'s manifest
//! validation, as the loader applies it, and every manifest that passes is assembled into `/openapi.json`
//! (host/src/openapi.rs), which must then document each of its routes.
//!
//! Seeds: with `DATAHOST_FUZZ_MANIFEST_SEEDS=<plugin dir>:<corpus dir>` set, the target first writes the
//! manifest of every plugin library in the first directory into the second (`tests/tools/fuzz.sh`).
#![no_main]

use datahost_plugin_api::abi::PluginModuleRef;
use datahost_plugin_api::abi_stable::library::lib_header_from_path;
use datahost_plugin_api::manifest::{validate, Manifest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: {
        if let Some((plugins, corpus)) =
            std::env::var("DATAHOST_FUZZ_MANIFEST_SEEDS").ok().as_deref().and_then(|v| v.split_once(':'))
        {
            for entry in std::fs::read_dir(plugins).expect("the plugin directory") {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if !(name.starts_with("libdatahost_") && name.ends_with(".so")) {
                    continue;
                }
                let module = lib_header_from_path(&path).and_then(|h| h.init_root_module::<PluginModuleRef>());
                let Ok(module) = module else { continue };
                let reply = module.manifest()();
                std::fs::write(std::path::Path::new(corpus).join(format!("{name}.json")), reply.payload.as_str()).unwrap();
            }
        }
    },
    |data: &[u8]| {
        // One manifest, or several (a JSON array): the assembly merges them in order.
        let manifests: Vec<Manifest> = match serde_json::from_slice::<serde_json::Value>(data) {
            Ok(serde_json::Value::Array(items)) => items.into_iter().filter_map(|v| serde_json::from_value(v).ok()).collect(),
            Ok(v) => serde_json::from_value(v).into_iter().collect(),
            Err(_) => return,
        };
        let valid: Vec<Manifest> = manifests.into_iter().filter(|m| validate(m).is_empty()).collect();
        let doc = datahost::openapi::assemble_manifests(&valid, "http://127.0.0.1:8080");
        for m in &valid {
            for route in m.routes.iter().filter(|r| !r.is_internal()) {
                assert!(doc["paths"].get(&route.path).is_some(), "route {} of {} is documented", route.path, m.slug);
            }
        }
        serde_json::to_vec(&doc).expect("the document serialises");
    }
);
