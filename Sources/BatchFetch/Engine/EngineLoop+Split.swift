import Foundation

extension EngineLoop {
    // MARK: - split downloads (`--split-min`)

    /// While slots are free and nothing waits for one, splits the running download with the most
    /// bytes left (``SplitPlan``): its part ends halfway through what it has left, and a helper
    /// transfer asks for the rest of the part's range.
    func splitTail(minimum: Int, now: UInt64) {
        let plan = SplitPlan(minimum: minimum)
        while self.machine.hasIdleSlots {
            var transfers: [Transfer] = []
            var candidates: [SplitPlan.Candidate] = []
            for transfer in self.machine.running {
                guard let easy = transfer.easy, let candidate = self.candidate(transfer, easy),
                    self.machine.mayStartHelper(of: transfer, now: now)
                else {
                    continue
                }
                transfers.append(transfer)
                candidates.append(candidate)
            }
            guard let choice = plan.choose(candidates), self.split(transfers[choice.index], at: choice.at, now: now)
            else {
                return
            }
        }
    }

    /// `transfer`'s part as a candidate for a split, when it may be split.
    private func candidate(_ transfer: Transfer, _ easy: CurlEasy) -> SplitPlan.Candidate? {
        let progress = easy.partProgress
        guard progress.received > 0, progress.checked, !easy.partIsCut else {
            return nil
        }
        if let part = transfer.part {
            guard !part.download.failed else {
                return nil
            }
            return SplitPlan.Candidate(start: part.start, end: part.end, received: progress.received)
        }
        let request = transfer.request
        guard request.method == .get, !request.hasBody, transfer.resume == nil, transfer.preflight == nil,
            !transfer.waiters.isEmpty, transfer.waiters.allSatisfy({ $0.ticket == nil }),
            let facts = easy.splitFacts()
        else {
            return nil
        }
        return SplitPlan.Candidate(start: 0, end: facts.length, received: progress.received)
    }

    /// Ends `transfer`'s part at `offset` and starts a helper for the rest of its range.
    /// - Returns: whether the helper started.
    private func split(_ transfer: Transfer, at offset: Int, now: UInt64) -> Bool {
        guard let easy = transfer.easy else {
            return false
        }
        let part: SplitPart
        if let existing = transfer.part {
            part = existing
        } else {
            guard let facts = easy.splitFacts() else {
                return false
            }
            part = SplitDownload(parent: transfer, length: facts.length, validator: facts.validator).parts[0]
        }
        let download = part.download
        let helper = Transfer(helperOf: download.parent, submittedAt: now)
        let helperPart = SplitPart(start: offset, end: part.end, transfer: helper, download: download)
        helper.part = helperPart
        download.insert(helperPart, after: part)
        easy.cutPart(at: offset, from: part.start)
        self.machine.beginHelper(helper, now: now)
        guard let helperEasy = self.idle.popLast() ?? self.makeHandle() else {
            self.undoSplit(helperPart, of: part, easy: easy, now: now)
            return false
        }
        if helperEasy.prepare(for: helper) ?? self.multi.add(helperEasy) != nil {
            helperEasy.reset()
            self.idle.append(helperEasy)
            self.undoSplit(helperPart, of: part, easy: easy, now: now)
            return false
        }
        helper.easy = helperEasy
        return true
    }

    private func undoSplit(_ helperPart: SplitPart, of part: SplitPart, easy: CurlEasy, now: UInt64) {
        self.machine.helperEnded(helperPart.transfer, now: now)
        let download = part.download
        download.remove(helperPart)
        if download.parts.count == 1 {
            download.dissolve()
            easy.uncutPart()
        } else {
            easy.cutPart(at: part.end, from: part.start)
        }
    }

    /// An attempt of a split download's part ended with `outcome`.
    func partFinished(
        _ transfer: Transfer, _ outcome: Result<Response, FetchError>, retryAfter: Duration?, newConnections: Int,
        now: UInt64
    ) {
        guard let part = transfer.part else {
            preconditionFailure("a split part's transfer lost its part")
        }
        let download = part.download
        let wanted = part.end - part.start
        let response = try? outcome.get()
        if part.isParent {
            guard let response, response.status == 200, response.body.count == wanted else {
                // The parent failed (or its body ended before its part did): the helpers stop
                // and the parent goes the usual way, retried from what it has where it can be.
                self.stopHelpers(of: download, now: now)
                download.dissolve()
                self.machine.transferFinished(
                    transfer, outcome, retryAfter: retryAfter, newConnections: newConnections, now: now)
                return
            }
            // It keeps its slot until the download settles, so that a cancellation finds it.
            transfer.newConnections += newConnections
            download.parentResponse = response
            part.body = response.body
            part.state = .done
        } else {
            self.machine.helperEnded(transfer, now: now)
            download.parent.newConnections += newConnections
            if let response, response.status == 206, response.body.count == wanted {
                part.body = response.body
                part.state = .done
            } else {
                part.state = .failed
                download.failed = true
            }
        }
        self.settle(download, now: now)
    }

    /// A split download's part's transfer was stopped (a cancellation, shutdown): a stopped parent
    /// ends its download, a stopped helper fails it; settled by ``settleStopped(now:)``, since
    /// this runs within the state machine's own event.
    func partStopped(_ transfer: Transfer) {
        guard let part = transfer.part else {
            return
        }
        let download = part.download
        if part.isParent {
            download.dissolve()
            return
        }
        part.state = .failed
        transfer.part = nil
        if !download.failed {
            download.failed = true
            self.unsettled.append(download)
        }
    }

    /// Settles the downloads whose helpers were stopped during the last event.
    func settleStopped(now: UInt64) {
        let downloads = self.unsettled
        self.unsettled.removeAll()
        for download in downloads where !download.parts.isEmpty {
            self.settle(download, now: now)
        }
    }

    /// Finishes a download whose parts all ended well, as the parent's one response; falls back
    /// to the parent alone once a helper failed.
    private func settle(_ download: SplitDownload, now: UInt64) {
        let parent = download.parent
        guard download.failed else {
            guard download.isComplete, let response = download.parentResponse else {
                return
            }
            let body = download.contiguousBody()
            download.dissolve()
            let whole = Response(
                status: response.status, headers: response.headers, body: body, effectiveURL: response.effectiveURL,
                attempts: response.attempts, timings: response.timings, httpVersion: response.httpVersion,
                newConnections: parent.newConnections)
            self.machine.transferFinished(parent, .success(whole), retryAfter: nil, now: now)
            return
        }
        self.stopHelpers(of: download, now: now)
        let first = download.parts[0]
        if first.state == .receiving {
            if let easy = parent.easy, !easy.partIsCut {
                // Still receiving: it goes on to its body's end.
                easy.uncutPart()
                download.dissolve()
            }
            // Otherwise it stopped at its part's end and its completion comes next.
            return
        }
        // Its part came whole: it asks for the rest, from the parts that came in order.
        parent.resume = ResumePoint(body: download.contiguousBody(), validator: download.validator, status: 200)
        download.dissolve()
        self.machine.restart(parent, now: now)
    }

    /// Stops the helpers still receiving; their parts fail.
    private func stopHelpers(of download: SplitDownload, now: UInt64) {
        for part in download.parts where !part.isParent && part.state == .receiving {
            part.state = .failed
            part.transfer.part = nil
            self.machine.helperEnded(part.transfer, now: now)
            self.stop(part.transfer)
        }
    }
}
