// A storage controller between the host and its disks, as the SCSI midlayer sees it.
//   hba       a SCSI host adapter (AHCI, SAS HBA): the Scsi_Host whose tag set every disk
//             behind it shares (shost->tag_set, can_queue tags per hardware queue);
//   expander  a SAS expander or port multiplier behind an HBA or another expander: it only
//             fans out links, so it has no tags of its own; the disks behind it use the tags
//             of the HBA at the root of their chain.
// The disk's own queue depth (sdev->queue_depth) becomes its dispatch budget.
#pragma once

#include <cstdint>
#include <string>

namespace blksim::dev {

struct ControllerConfig {
    enum class Kind : uint8_t { HBA, EXPANDER };
    std::string name;
    Kind kind = Kind::HBA;
    std::string parent;            // expander: the controller it hangs off
    uint32_t can_queue = 256;      // hba: shost->can_queue, tags per hardware queue
    uint32_t nr_hw_queues = 1;     // hba: shost->nr_hw_queues (capped at the CPU count)
    uint32_t reserved_tags = 0;    // hba: set->reserved_tags, kept out of normal I/O
    bool host_tagset = false;      // hba: shost->host_tagset, one tag space for all hctxs (HCTX_SHARED)
};

}  // namespace blksim::dev
