//! The database: connection pools, migrations, the `sql/` loader, the embedded
//! cluster, and where data reads go.

pub mod cluster;
pub mod db;
pub mod reads;
