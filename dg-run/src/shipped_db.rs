//! The tuning database as this program sees it: the shipped files of `tuning-db/`, compiled into the binary (an
//! installed `dg` has them wherever it runs), then the user cache directory, whose entries override them.

use dg_runtime::backend::DeviceFingerprint;
use dg_runtime::tuning_db::{user_dir, DbSource, DeviceDb, DeviceResults};

include!(concat!(env!("OUT_DIR"), "/shipped_db.rs"));

/// The sources in increasing precedence: the shipped files, then the user cache directory.
pub fn sources() -> Vec<DbSource> {
    let mut sources: Vec<DbSource> = SHIPPED.iter().map(|&(name, text)| DbSource::Shipped { name, text }).collect();
    sources.push(DbSource::Dir(user_dir()));
    sources
}

/// The results visible for `device`; unreadable files are reported through `log`, once each.
pub fn load(device: &DeviceFingerprint, log: &mut dyn FnMut(&str)) -> DeviceDb {
    let db = DeviceDb::load(&sources(), device);
    for w in &db.warnings {
        log(w);
    }
    db
}

/// The results visible for `device` and, when it has none of its own for a key, those of the other CUDA devices
/// of its architecture ([`DeviceResults`]); unreadable files of the device are reported through `log`, once each.
pub fn results(device: &DeviceFingerprint, log: &mut dyn FnMut(&str)) -> DeviceResults {
    let results = DeviceResults::load(sources(), device);
    for w in &results.own.warnings {
        log(w);
    }
    results
}
